"""What every resolvable design the tournament builds must be, checked whole."""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def assert_resolvable(v: int, k: int, rounds: Sequence[Sequence[Sequence[int]]]) -> None:
    """(v - 1) / (k - 1) rounds, each a partition of 0..v-1 into tables of `k` different
    points, every pair at one table exactly once."""
    assert len(rounds) == (v - 1) // (k - 1), v
    met: set[tuple[int, int]] = set()
    for one in rounds:
        assert sorted(p for table in one for p in table) == list(range(v)), (v, one)
        for table in one:
            pairs = set(itertools.combinations(sorted(table), 2))
            assert len(table) == k and len(pairs) == k * (k - 1) // 2, (v, table)
            assert met.isdisjoint(pairs), (v, table)
            met |= pairs
    assert len(met) == v * (v - 1) // 2
