"""The table solver against a brute-force partition search on small random instances, and
the plays it returns checked as legal moves."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.games.rummy.cards import INDEX, PENALTY
from arena.games.rummy.melds import meld_problem
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.solver import find_play, solve

from .brute import best_value, random_instance


def check_solution(hand: list[str], table: list[list[str]], new: tuple[tuple[str, ...], ...],
                   max_jokers: int) -> int:
    """Assert `new` is a legal play; return the hand points it places."""
    for meld in new:
        assert meld_problem(meld, max_jokers) is None, meld
    old = Counter(c for m in table for c in m)
    after = Counter(c for m in new for c in m)
    assert not old - after
    placed = after - old
    assert placed and not placed - Counter(hand)
    return sum(PENALTY[INDEX[c]] * n for c, n in placed.items())


@pytest.mark.parametrize("max_jokers", [1, 2])
def test_solver_matches_brute_force(max_jokers: int) -> None:
    values = []
    for seed in range(150):
        hand, table = random_instance(random.Random(f"{max_jokers}:{seed}"), max_jokers)
        expected = best_value(hand, [c for m in table for c in m], max_jokers)
        found = solve(hand, table, max_jokers)
        assert (found.value if found else 0) == expected, (seed, hand, table)
        assert (find_play(hand, table, max_jokers) is None) == (expected == 0)
        if found is not None:
            assert found.optimal
            assert check_solution(hand, table, found.table, max_jokers) == found.value
        values.append(expected)
    # the instances must exercise both answers, or the comparison proves little
    assert values.count(0) > 10 and sum(v > 0 for v in values) > 40


def test_solver_finds_a_rebuild_that_no_cheap_move_finds() -> None:
    table = [["7H", "8H", "9H"], ["QS", "QD", "QC"]]
    hand = ["7S", "7D", "10H", "2C"]
    assert not simple_plays(["7S", "7D"], table, 1)
    found = solve(hand, table, 1)
    assert found is not None and found.value == 24
    assert sorted(found.placed) == ["10H", "7D", "7S"]


def test_keep_table_only_adds_melds_from_hand() -> None:
    table = [["7H", "8H", "9H"]]
    found = solve(["10H", "5S", "6S", "7S"], table, 1, keep_table=True)
    assert found is not None
    assert found.table[0] == ("7H", "8H", "9H") and found.placed == ("5S", "6S", "7S")
    assert solve(["10H"], table, 1, keep_table=True) is None


def test_exhausted_budget_falls_back_to_a_cheap_legal_move() -> None:
    table = [["7H", "8H", "9H"], ["QS", "QD", "QC"], ["2S", "3S", "4S", "5S"]]
    hand = ["10H", "6S", "KC", "JH", "QH"]
    found = solve(hand, table, 1, node_limit=1)
    assert found is not None and not found.optimal
    check_solution(hand, table, found.table, 1)
    best = solve(hand, table, 1)
    assert best is not None and best.optimal and best.value >= found.value
