"""A brute-force reference for the solver: plain partition search over small instances.

It knows nothing of the solver's meld generator: it tries every subset of the hand and
every set partition of the cards, checking blocks with `melds.meld_problem` alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from itertools import combinations

from arena.games.rummy.cards import INDEX, JOKER, PENALTY, RANKS, SUITS
from arena.games.rummy.melds import is_meld


def partitions_into_melds(cards: Sequence[str], max_jokers: int) -> bool:
    """Return whether `cards` split into valid melds (every card used)."""

    @cache
    def ok(rest: tuple[str, ...]) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        for size in range(2, len(others) + 1):
            for picked in combinations(range(len(others)), size):
                block = [first, *(others[i] for i in picked)]
                if is_meld(block, max_jokers):
                    left = tuple(c for i, c in enumerate(others) if i not in picked)
                    if ok(left):
                        return True
        return False

    return ok(tuple(sorted(cards)))


def best_value(hand: Sequence[str], table: Sequence[str], max_jokers: int) -> int:
    """Return the most hand points placeable on `table` (0: no play exists)."""
    best = 0
    seen: set[tuple[str, ...]] = set()
    for size in range(1, len(hand) + 1):
        for picked in combinations(sorted(hand), size):
            if picked in seen:
                continue
            seen.add(picked)
            value = sum(PENALTY[INDEX[c]] for c in picked)
            if value > best and partitions_into_melds([*table, *picked], max_jokers):
                best = value
    return best


def random_instance(rng: random.Random, max_jokers: int
                    ) -> tuple[list[str], list[list[str]]]:
    """Return (hand, table melds) over a narrow universe so that melds are likely.

    The table is a union of random valid melds; ranks come from a window of positions that
    may straddle the ace (J Q K A 2), so ace-high, ace-low and wrap cases all occur.
    """
    start = rng.randrange(1, 11)
    positions = range(start, start + 5)
    ranks = [RANKS[(p - 1) % 13] for p in positions]
    suits = rng.sample(SUITS, 2 if rng.random() < 0.6 else 3)
    universe = [r + s for r in ranks for s in suits]
    table: list[list[str]] = []
    for _ in range(rng.randrange(0, 3)):
        for _attempt in range(50):
            meld = rng.sample(universe, rng.randrange(3, 5))
            if rng.random() < 0.15:
                meld[0] = JOKER
            if is_meld(meld, max_jokers):
                table.append(meld)
                break
    hand = [rng.choice(universe) for _ in range(rng.randrange(1, 6))]
    if rng.random() < 0.3:
        hand.append(JOKER)
    if not table and not hand:
        hand = [universe[0]]
    return hand, table
