"""Matchmaking: the tables of a ladder round, chosen to learn the most. Pure, no I/O.

Table by table:
- the *focus* is the entry we know least about: no game yet first (a new version plays at
  once), then the widest belief (sigma), each table already planned for it this round
  counting as more knowledge;
- its opponents are, with probability `explore`, drawn uniformly from the whole field
  (so every part of the field stays linked to every other); else those whose order
  against the focus the beliefs are least sure of (`unsettled`: close ratings, or wide
  beliefs), each table already planned this round dividing an entry's claim: a game
  between bots whose order is settled teaches nothing (in a simulated 30-bot ladder this
  halves the rank error of uniform random tables: docs/ladder.md);
- seats go to whoever held them least (exactly for up to `EXACT_SEATS` seats, greedily
  beyond).

Every random draw comes from the ladder's seed, the round number and the table index, so
the same beliefs give the same tables: a ladder resumed, or re-run from the same stored
games, makes the same choices.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.core.errors import ConfigError
from arena.core.rng import derive_seed
from arena.core.words import count_of

EXACT_SEATS = 6
"""Up to this many seats the seating is the best of every permutation (720 at 6)."""
JITTER = 0.05
"""A seeded draw (up to 5%) that varies the opponents among nearly equal choices."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """What matchmaking knows of an active entry."""

    entry: str
    mu: float
    sigma: float
    games: int
    seats: tuple[int, ...]
    """Games held in each seat."""


def plan_round(entrants: Sequence[Entrant], tables: int, size: int, explore: float,
               seed: int, number: int) -> list[tuple[str, ...]]:
    """Return `tables` seatings (entries by seat) for round `number`.

    Raises:
        ConfigError: fewer active entries than seats at a table.
    """
    if len(entrants) < size:
        raise ConfigError(f"the ladder has {count_of(len(entrants), 'active bot')}; a table "
                          f"needs "
                          f"{size}: add bots with `arena ladder add`")
    ordered = sorted(entrants, key=lambda e: e.entry)
    planned: Counter[str] = Counter()
    held: dict[str, list[int]] = {e.entry: _padded(e.seats, size) for e in ordered}
    out = []
    for index in range(tables):
        rng = random.Random(derive_seed(seed, "ladder", number, index))
        focus = _focus(ordered, planned, seed)
        others = [e for e in ordered if e.entry != focus.entry]
        if rng.random() < explore:
            chosen = rng.sample(others, size - 1)
        else:
            chosen = _closest(focus, others, size - 1, planned, rng)
        seating = _seat([focus.entry, *(e.entry for e in chosen)], held, rng)
        for seat, entry in enumerate(seating):
            planned[entry] += 1
            held[entry][seat] += 1
        out.append(seating)
    return out


def _padded(seats: Sequence[int], size: int) -> list[int]:
    return [*seats[:size], *([0] * (size - len(seats)))]


def _focus(entrants: Sequence[Entrant], planned: Counter[str], seed: int) -> Entrant:
    def key(e: Entrant) -> tuple[bool, float, int]:
        played = e.games + planned[e.entry]
        return (played > 0, -e.sigma / math.sqrt(1 + planned[e.entry]),
                derive_seed(seed, "focus", e.entry))
    return min(entrants, key=key)


def unsettled(a: Entrant, b: Entrant) -> float:
    """How unsure the beliefs are of which of `a` and `b` is stronger: 1 when their means
    are equal, towards 0 as the gap grows past their combined sigma (two normal tails)."""
    spread = math.sqrt(a.sigma ** 2 + b.sigma ** 2) or 1e-9
    return math.erfc(abs(a.mu - b.mu) / spread / math.sqrt(2))


def _closest(focus: Entrant, others: Sequence[Entrant], count: int, planned: Counter[str],
             rng: random.Random) -> list[Entrant]:
    value = {e.entry: unsettled(focus, e) * (1 + JITTER * rng.random()) / (1 + planned[e.entry])
             for e in others}
    return sorted(others, key=lambda e: (-value[e.entry], e.entry))[:count]


def _seat(members: Sequence[str], held: Mapping[str, Sequence[int]],
          rng: random.Random) -> tuple[str, ...]:
    """Seat `members` so that each takes the seats it held least (ties: a seeded draw)."""
    shuffled = list(members)
    rng.shuffle(shuffled)
    size = len(shuffled)
    if size <= EXACT_SEATS:
        return min(itertools.permutations(shuffled),
                   key=lambda order: sum(held[e][s] ** 2 for s, e in enumerate(order)))
    seating: list[str] = []
    free = list(shuffled)
    for seat in range(size):
        best = min(free, key=lambda e: held[e][seat] - min(held[e]))
        free.remove(best)
        seating.append(best)
    return tuple(seating)
