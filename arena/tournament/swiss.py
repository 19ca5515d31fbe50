"""Swiss pairing of two seats by maximum-weight matching, as a chess arbiter pairs.

Every possible pairing (and the bye, when the field is odd) is an edge whose weight ranks
the criteria lexicographically, most important first:

0. no second bye while a bot without one can have it;
1. no repeated pairing (absolute while avoidable);
2. seats: no bot given the seat that would put it two seats ahead of the other
   (|first - second| <= 1) or in the same seat three games running;
3. the bye to the lowest-ranked bot that can have it;
4. score groups: the squared difference of the groups paired;
5. mild seat wishes: each bot alternates from its last seat;
6. within a score group, the top half meets the bottom half (the Dutch system).

A maximum-weight matching (`networkx.max_weight_matching`, maximum cardinality) then picks
the pairing that is best on the first criterion, then the second, and so on, over the
whole field at once: a bye or a repeat-free pairing of the last rounds is never missed
because an earlier choice was made greedily. Integer weights keep it exact.

Up to `FULL_FIELD` bots the whole field is matched at once. Above it, consecutive blocks of
`BLOCK` ranks are matched one by one (a blossom over 1,000 bots takes minutes in pure
Python); a block whose best pairing breaks criterion 1 or 2 is merged with the next and the
merged block re-matched, so those guarantees hold at every size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

FULL_FIELD = 100
BLOCK = 40
LOOKAHEAD_FIELD = 12
"""Up to this many bots, a round is paired so that the rounds left can still be paired
without repeats (FIDE's completion criterion), whenever that is possible at all."""
BYE = ""
"""The bye's vertex (no bot has an empty name)."""


@dataclass(frozen=True, slots=True)
class SeatHistory:
    """What one bot's two-seat games say about its next seat."""

    diff: int = 0
    """First seats minus second seats."""
    last: tuple[int, ...] = ()
    """Its last two seats (0 first, 1 second), oldest first."""

    def must(self) -> int | None:
        """The seat it must have (None: either), from its balance then its streak."""
        if self.diff >= 1:
            return 1
        if self.diff <= -1:
            return 0
        if len(self.last) == 2 and self.last[0] == self.last[1]:
            return 1 - self.last[0]
        return None

    def wish(self) -> int | None:
        """The seat it would like: the other one than last time."""
        return 1 - self.last[-1] if self.last else None


def seat_history(sequence: Sequence[int]) -> SeatHistory:
    """Summarise a bot's seats in its two-seat games, in the order played."""
    return SeatHistory(sequence.count(0) - sequence.count(1), tuple(sequence[-2:]))


@dataclass(frozen=True, slots=True)
class Field:
    """The inputs of one round: ranking, score groups, history."""

    ranked: Sequence[str]
    group: Mapping[str, int]
    """Score group per bot, 0 the top one."""
    seats: Mapping[str, SeatHistory]
    met: Mapping[tuple[str, str], int]
    byes: Mapping[str, int]
    rounds_left: int = 1
    """Rounds still to pair, this one included."""

    def has_met(self, a: str, b: str) -> bool:
        return bool(self.met.get((a, b) if a < b else (b, a)))


def score_groups(ranked: Sequence[str], points: Mapping[str, float] | None) -> dict[str, int]:
    """Number the distinct scores, best first (no points: one group)."""
    if points is None:
        return {b: 0 for b in ranked}
    values = sorted({points.get(b, 0.0) for b in ranked}, reverse=True)
    index = {v: i for i, v in enumerate(values)}
    return {b: index[points.get(b, 0.0)] for b in ranked}


def pair(fld: Field) -> tuple[list[tuple[str, str]], str | None]:
    """Return the round's pairs (first seat first) and the bot with the bye, if any."""
    bots = list(fld.ranked)
    if len(bots) <= FULL_FIELD:
        pairs, bye = _match(fld, bots, with_bye=len(bots) % 2 == 1)
        if fld.rounds_left > 1 and len(bots) <= LOOKAHEAD_FIELD:
            pairs, bye = _completable(fld, pairs, bye)
        return [_seat(fld, a, b, i) for i, (a, b) in enumerate(pairs)], bye
    blocks = [bots[i:i + BLOCK] for i in range(0, len(bots), BLOCK)]
    out: list[tuple[str, str]] = []
    start = 0
    while start < len(blocks):
        end = start + 1
        while True:
            members = [b for block in blocks[start:end] for b in block]
            last = end == len(blocks)
            pairs, bye = _match(fld, members, with_bye=last and len(bots) % 2 == 1)
            if last or _clean(fld, members, pairs):
                break
            end += 1
        out.extend(pairs)
        start = end
    return [_seat(fld, a, b, i) for i, (a, b) in enumerate(out)], bye


def _clean(fld: Field, members: Sequence[str], pairs: Sequence[tuple[str, str]]) -> bool:
    """Whether no pair repeats and no more pairs clash in seats than the block's own needs
    force (more bots that must take one seat than bots free or needing the other)."""
    if any(fld.has_met(a, b) for a, b in pairs):
        return False
    needs = [fld.seats.get(b, SeatHistory()).must() for b in members]
    forced = max(0, abs(needs.count(0) - needs.count(1)) - needs.count(None)) // 2
    return sum(_clash(fld, a, b) for a, b in pairs) <= forced


def _clash(fld: Field, a: str, b: str) -> bool:
    need = fld.seats.get(a, SeatHistory()).must()
    return need is not None and need == fld.seats.get(b, SeatHistory()).must()


def _weights(fld: Field) -> Callable[[str, str], int]:
    """The weight of each edge (a bot and another, or the bye): higher is better."""
    n = len(fld.ranked) + 1
    rank = {b: i for i, b in enumerate(fld.ranked)}
    # radices of the lexicographic weight (see the module docstring), least significant first
    u5 = n ** 3 + 1
    u4 = u5 * (n + 1)
    u3 = u4 * (n ** 3 + 1)
    u2 = u3 * (n + 1)
    u1 = u2 * (n + 1)
    u0 = u1 * (n + 2)
    big = u0 * 2
    half = _half_targets(fld)

    def weight(a: str, b: str) -> int:
        if BYE in (a, b):
            bot = b if a == BYE else a
            return big - u0 * (fld.byes.get(bot, 0) > 0) - u3 * (n - 2 - rank[bot])
        return big - (u1 * fld.has_met(a, b) + u2 * _clash(fld, a, b)
                      + u4 * (fld.group[a] - fld.group[b]) ** 2 + u5 * _wish_clash(fld, a, b)
                      + (half[a] - rank[b]) ** 2 + (half[b] - rank[a]) ** 2)

    return weight


def _match(fld: Field, members: Sequence[str],
           with_bye: bool) -> tuple[list[tuple[str, str]], str | None]:
    # imported here: networkx takes a third of the time a worker process needs to start,
    # and only a Swiss round's pairing uses it
    import networkx as nx

    rank = {b: i for i, b in enumerate(fld.ranked)}
    weight = _weights(fld)
    graph: nx.Graph[str] = nx.Graph()
    for i, a in enumerate(members):
        for b in members[i + 1:]:
            graph.add_edge(a, b, weight=weight(a, b))
        if with_bye:
            graph.add_edge(a, BYE, weight=weight(a, BYE))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[tuple[str, str]] = []
    bye = None
    for a, b in matching:
        if BYE in (a, b):
            bye = b if a == BYE else a
        else:
            pairs.append((a, b) if rank[a] < rank[b] else (b, a))
    pairs.sort(key=lambda p: rank[p[0]])
    return pairs, bye


def _half_targets(fld: Field) -> dict[str, int]:
    """The rank each bot would meet in the Dutch split of its score group (S1 vs S2)."""
    rank = {b: i for i, b in enumerate(fld.ranked)}
    groups: dict[int, list[str]] = {}
    for bot in fld.ranked:
        groups.setdefault(fld.group[bot], []).append(bot)
    target: dict[str, int] = {}
    for group in groups.values():
        h = len(group) // 2
        for i, bot in enumerate(group):
            j = i + h if i < h else i - h
            target[bot] = rank[group[min(j, len(group) - 1)]]
    return target


def _wish_clash(fld: Field, a: str, b: str) -> bool:
    wish = fld.seats.get(a, SeatHistory()).wish()
    return wish is not None and wish == fld.seats.get(b, SeatHistory()).wish()


def _seat(fld: Field, a: str, b: str, board: int) -> tuple[str, str]:
    """Return (first seat, second seat) for a pair where `a` is ranked higher."""
    sa, sb = fld.seats.get(a, SeatHistory()), fld.seats.get(b, SeatHistory())
    for want_a, want_b in ((sa.must(), sb.must()), (sa.wish(), sb.wish())):
        if want_a is not None and want_a != want_b:
            return (a, b) if want_a == 0 else (b, a)
        if want_b is not None and want_a is None:
            return (b, a) if want_b == 0 else (a, b)
        if want_a is not None:  # both want the same seat: the stronger claim, then rank
            if abs(sb.diff) > abs(sa.diff):
                return (b, a) if want_b == 0 else (a, b)
            return (a, b) if want_a == 0 else (b, a)
    return (a, b) if board % 2 == 0 else (b, a)


def _vertices(fld: Field) -> list[str]:
    return [*fld.ranked, BYE] if len(fld.ranked) % 2 else list(fld.ranked)


def _free(fld: Field, a: str, b: str, used: set[tuple[str, str]]) -> bool:
    """Whether a and b (or a bot and the bye) may still meet without a repeat."""
    key = (a, b) if a < b else (b, a)
    if key in used:
        return False
    if BYE in (a, b):
        return not fld.byes.get(b if a == BYE else a, 0)
    return not fld.has_met(a, b)


def _matchings(vertices: list[str],
               ok: Callable[[str, str], bool]) -> Iterator[list[tuple[str, str]]]:
    if not vertices:
        yield []
        return
    top, rest = vertices[0], vertices[1:]
    for other in rest:
        if ok(top, other):
            for tail in _matchings([v for v in rest if v != other], ok):
                yield [(top, other), *tail]


def _rounds_exist(fld: Field, used: set[tuple[str, str]], count: int) -> bool:
    """Whether `count` more rounds can be paired without a repeat or a second bye."""
    if count == 0:
        return True
    for matching in _matchings(_vertices(fld), lambda a, b: _free(fld, a, b, used)):
        keys = {(a, b) if a < b else (b, a) for a, b in matching}
        if _rounds_exist(fld, used | keys, count - 1):
            return True
    return False


def _completable(fld: Field, pairs: list[tuple[str, str]],
                 bye: str | None) -> tuple[list[tuple[str, str]], str | None]:
    """The best pairing after which the remaining rounds can be paired without repeats:
    the matching's own when it is one, else the best-weighted such pairing (by brute
    force, small fields only); the matching's when none exists."""
    def keys(matching: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        return {(a, b) if a < b else (b, a) for a, b in matching}

    chosen = [*pairs, *([(bye, BYE)] if bye is not None else [])]
    if _rounds_exist(fld, keys(chosen), fld.rounds_left - 1):
        return pairs, bye
    candidates = list(_matchings(_vertices(fld), lambda a, b: _free(fld, a, b, set())))
    candidates.sort(key=lambda m: _cost(fld, m))
    for matching in candidates:
        if _rounds_exist(fld, keys(matching), fld.rounds_left - 1):
            rank = {b: i for i, b in enumerate(fld.ranked)}
            found = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in matching
                     if BYE not in (a, b)]
            other = next((a if b == BYE else b for a, b in matching if BYE in (a, b)), None)
            return sorted(found, key=lambda p: rank[p[0]]), other
    return pairs, bye


def _cost(fld: Field, matching: Sequence[tuple[str, str]]) -> int:
    """The matching's total cost under `_match`'s weights."""
    return -sum(_weights(fld)(a, b) for a, b in matching)
