"""The steps of the rank-by-rank programme (`dp`): one suit's decisions at one value, the
splits of group copies into groups, and the cards worth searching at all.

Imports only the standard library and this package.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, product

from arena.games.rummy.cards import JOKER_INDEX, natural

NEG = -(10**9)
LAST = 14
"""The high ace; value 15 only closes the runs still open."""
MAX_RUN = 13

Run = tuple[int, int, int]
"""An open run: (length so far capped at 3, jokers in it, 1 if it ends on a gap joker)."""
SuitRuns = tuple[Run, ...]
Groups = tuple[int, int, int, int]
"""Copies of the current value sent to groups, per suit."""
Plan = tuple[tuple[tuple[int, ...], int], ...]
"""Groups as (suits, jokers) each."""
EXTEND, GAP, CLOSE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class SuitStep:
    """One decision for one suit at one value."""

    runs: SuitRuns
    """The open runs afterwards, sorted."""
    actions: tuple[int, ...]
    """Per open run before (sorted order): EXTEND, GAP or CLOSE."""
    starts: int
    grouped: int
    used: int
    """Natural copies used (extensions, starts and group copies)."""
    jokers: int
    """Jokers placed: gap jokers and the extras short runs need to reach 3 cards."""
    room: int
    """Further jokers the runs closed here could take."""


def _run_options(run: Run, natural_ok: bool, extend_ok: bool, max_jokers: int
                 ) -> list[tuple[int, Run | None, int, int, int]]:
    """Return (action, run after, naturals used, jokers used, room) for one open run.

    Gap jokers must be followed by a natural card (a joker at a run's end is an extra:
    its place is free), and a closing run takes only the extras it needs to reach 3 cards;
    what more it could hold is room, spent at the very end.
    """
    length, jokers, gap = run
    out: list[tuple[int, Run | None, int, int, int]] = []
    if extend_ok and natural_ok:
        out.append((EXTEND, (min(length + 1, 3), jokers, 0), 1, 0, 0))
    if extend_ok and jokers < max_jokers:
        out.append((GAP, (min(length + 1, 3), jokers + 1, 1), 0, 1, 0))
    if gap:
        return out
    need = max(0, 3 - length)
    if jokers + need <= max_jokers:
        out.append((CLOSE, None, 0, need, max_jokers - jokers - need))
    return out


@cache
def suit_steps(runs: SuitRuns, avail: int, low: int, jokers: int, max_jokers: int,
               value: int) -> tuple[SuitStep, ...]:
    """Return every distinct decision for one suit holding `avail` copies of the value.

    At least `low` copies must be used; at most `jokers` jokers. Runs start up to value 13,
    groups form up to value 13 (ace groups at value 1), nothing extends past value 14.
    """
    extend_ok = value <= LAST
    start_ok = group_ok = value < LAST
    per_run = [_run_options(run, avail > 0, extend_ok, max_jokers) for run in runs]
    found: dict[tuple[SuitRuns, int, int, int, int], SuitStep] = {}
    for combo in product(*per_run):
        naturals = sum(option[2] for option in combo)
        used_jokers = sum(option[3] for option in combo)
        if naturals > avail or used_jokers > jokers:
            continue
        room = sum(option[4] for option in combo)
        kept: list[Run] = [option[1] for option in combo if option[1] is not None]
        spare = avail - naturals
        for starts in range(spare + 1 if start_ok else 1):
            for grouped in range(spare - starts + 1 if group_ok else 1):
                used = naturals + starts + grouped
                if used < low:
                    continue
                after = tuple(sorted(kept + [(1, 0, 0)] * starts))
                key = (after, grouped, used, used_jokers, room)
                if key not in found:
                    found[key] = SuitStep(after, tuple(o[0] for o in combo), starts, grouped,
                                          used, used_jokers, room)
    return tuple(found.values())


@cache
def shortness(runs: SuitRuns) -> tuple[int, int]:
    """Return (the runs still short of 3 cards or ending on a gap joker, those of one card):
    what each needs at the next value, and at the one after. Cached: the search asks it
    of every suit at every value's end, and a suit's runs are few distinct tuples."""
    return (sum(length < 3 or gap for length, _, gap in runs),
            sum(length == 1 for length, _, _ in runs))


def _plans(counts: Groups, jokers: int, max_jokers: int) -> list[tuple[int, int, Plan]]:
    """Return every split of group copies into groups: (jokers, room, plan).

    The first suit with a copy must be in some group, so trying every group through it
    is complete. A group of 3 below the joker limit has room for one more joker.
    """
    first = next((s for s in range(4) if counts[s]), None)
    if first is None:
        return [(0, 0, ())]
    others = [s for s in range(4) if s != first and counts[s]]
    out: list[tuple[int, int, Plan]] = []
    for size in range(len(others) + 1):
        for subset in combinations(others, size):
            for used in range(min(max_jokers, jokers) + 1):
                cards = 1 + size + used
                if not 3 <= cards <= 4:
                    continue
                rest = list(counts)
                for suit in (first, *subset):
                    rest[suit] -= 1
                room = 1 if cards == 3 and used < max_jokers else 0
                for more, more_room, plan in _plans((rest[0], rest[1], rest[2], rest[3]),
                                                    jokers - used, max_jokers):
                    out.append((used + more, room + more_room,
                                (((first, *subset), used), *plan)))
    return out


@cache
def group_options(counts: Groups, jokers: int, max_jokers: int
                  ) -> tuple[tuple[int, int, Plan], ...]:
    """Return the useful ways to form groups from `counts` with at most `jokers` jokers.

    Each option: (jokers placed, room for more, plan). An option is dropped when another
    places no more jokers and can hold at least as many in all.
    """
    found = _plans(counts, jokers, max_jokers)
    found.sort(key=lambda o: (o[0], -o[1]))
    kept: list[tuple[int, int, Plan]] = []
    for used, room, plan in found:
        if all(used + room > u + r for u, r, _ in kept):
            kept.append((used, room, plan))
    return tuple(kept)


def useful(required: list[int], optional: list[int], max_jokers: int) -> list[int]:
    """Return `optional` without the natural cards that fit no meld even with every card.

    A card fits a group when two other suits of its rank (or jokers) are on offer, and a
    run when some three consecutive places around it lack at most the jokers allowed.
    """
    jokers = min(max_jokers, required[JOKER_INDEX] + optional[JOKER_INDEX])
    kept = list(optional)
    # a table of the places held, not a call per question, and a card's windows tried only
    # while it fits nothing yet: every search asks this twice; asked of a 64-card table's
    # cards, 170-230 us went to 13-18
    have = [[required[i] + optional[i] > 0 for i in row] for row in _PLACES]
    for index in range(JOKER_INDEX):
        if not optional[index]:
            continue
        rank, suit = index % 13 + 1, index // 13
        row = have[rank]
        if row[0] + row[1] + row[2] + row[3] - row[suit] + jokers >= 2:
            continue  # a group
        if not any(sum(not have[p][suit] for p in range(low, low + 3) if p != position)
                   <= jokers for position in ((1, LAST) if rank == 1 else (rank,))
                   for low in range(max(1, position - 2), min(position, LAST - 2) + 1)):
            kept[index] = 0
    return kept


def card_at(value: int, suit: int) -> int:
    """Return the natural card index at `value` (1..14) of `suit`."""
    return natural(1 if value == LAST else value, suit)


_PLACES = [[0] * 4] + [[card_at(value, suit) for suit in range(4)]
                      for value in range(1, LAST + 1)]
"""The card index at each value (1..14, 0 unused) and suit."""

RUNS_BITS = 16
"""Bits of a suit's open runs in a state's packed runs (`pack_runs`)."""
RUNS_MASK = (1 << RUNS_BITS) - 1
_RUNS_ID: dict[SuitRuns, int] = {(): 0}
RUNS_OF: list[SuitRuns] = [()]
"""The open runs of each id (`runs_id`): grows as searches meet new ones, a few hundred at
most (sorted runs of at most 3 lengths, the jokers allowed, and a gap flag)."""


def runs_id(runs: SuitRuns) -> int:
    """Return the id of a suit's open runs (the same id for the same runs, () is 0)."""
    known = _RUNS_ID.get(runs)
    if known is None:
        known = _RUNS_ID[runs] = len(RUNS_OF)
        RUNS_OF.append(runs)
    return known


def pack_runs(runs: tuple[SuitRuns, ...]) -> int:
    """Return the four suits' open runs as one int: suit s's id in bits 16s to 16s + 15.

    What it buys: a state's key hashes an int where it hashed four nested tuples (a third
    of the cost of each memo look-up), and a step's child adds the step's change of ids
    where it built a new tuple of the four suits (`dp_moves.Moves._steps`).
    """
    return sum(runs_id(suit_runs) << (RUNS_BITS * suit) for suit, suit_runs in enumerate(runs))


def suit_runs(runs: int, suit: int) -> SuitRuns:
    """Return one suit's open runs out of a state's packed runs (`pack_runs`)."""
    return RUNS_OF[(runs >> (RUNS_BITS * suit)) & RUNS_MASK]


Pend = tuple[tuple[int, int], ...]
"""Per suit, the ace copies (table, hand) kept from value 1 for value 14."""
Key = tuple[int, int, int, Pend, Groups, int, int, int]
"""(value, suit, open runs per suit packed in an int (`pack_runs`), pend, group copies
at this value per suit, jokers placed, room for more jokers, units of jokers the state
needs by `dp_bound`). Between values 2 and 13 the pend is left out of the key (it is
`()`): those states return a profile, their value for every possible pend. The last
entry is a function of the others (`SuitBound.total` of value, suit, runs and groups; 0
with the bound off), so it splits no state in two: it is carried in the key so that a
child's is its parent's plus what the step adds, not summed again over the suits (see
`dp_moves.Moves._steps`)."""
Choice = SuitStep | tuple[int, int, Plan]
Child = tuple[int, Key, Choice]
