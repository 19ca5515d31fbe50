"""The table solver against a brute-force partition search on small random instances, and
the plays it returns checked as legal moves."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.games.rummy import dp
from arena.games.rummy.cards import INDEX, JOKER, PENALTY
from arena.games.rummy.melds import meld_problem
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.solver import first_play, search_table, solve

from .brute import best_value, partitions_into_melds, random_instance


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


@pytest.mark.parametrize("race_nodes", [dp.RACE_NODES, 8])
@pytest.mark.parametrize("max_jokers", [1, 2, 3])
def test_solver_matches_brute_force(max_jokers: int, race_nodes: int,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny race turns (8) make the bound-led search and the full programme take turns
    many times on one instance, sharing the memo, bounds and profiles."""
    monkeypatch.setattr(dp, "RACE_NODES", race_nodes)
    values = []
    for seed in range(250):
        hand, table = random_instance(random.Random(f"{max_jokers}:{seed}"), max_jokers)
        expected = best_value(hand, [c for m in table for c in m], max_jokers)
        found = solve(hand, table, max_jokers)
        assert (found.value if found else 0) == expected, (seed, hand, table)
        assert (first_play(hand, table, max_jokers) is None) == (expected == 0)
        if found is not None:
            assert found.optimal
            assert check_solution(hand, table, found.table, max_jokers) == found.value
        values.append(expected)
    # the instances must exercise both answers, or the comparison proves little
    assert values.count(0) > 10 and sum(v > 0 for v in values) > 40


@pytest.mark.parametrize("max_jokers", [1, 2, 3])
def test_feasibility_matches_brute_force(max_jokers: int) -> None:
    """Everything required (the going-out question), jokers often two or three: the
    search's joker dominance (fewer placed, as much held, proven infeasible: so is this)
    must never cut a solvable table."""
    answers = []
    for seed in range(200):
        rng = random.Random(f"all:{max_jokers}:{seed}")
        hand, table = random_instance(rng, max_jokers)
        hand += [JOKER] * rng.randrange(0, 3)
        cards = [c for m in table for c in m] + hand
        expected = partitions_into_melds(cards, max_jokers)
        found = search_table(cards, [], max_jokers)
        assert (found is not None) == expected, (seed, cards)
        if found is not None:
            assert all(meld_problem(m, max_jokers) is None for m in found[1])
            assert Counter(c for m in found[1] for c in m) == Counter(cards)
        answers.append(expected)
    assert 20 < sum(answers) < 180


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


def test_aces_low_and_high_and_a_run_of_fourteen_is_cut() -> None:
    """Both spade aces in one suit run A..K..A: 14 cards, so the solver cuts it in two."""
    table = [["AS", "2S", "3S"], ["4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]]
    found = solve(["AS"], table, 1)
    assert found is not None and found.value == 11
    assert check_solution(["AS"], table, found.table, 1) == 11
    assert all(len(meld) <= 13 for meld in found.table)
    # K-A-2 does not wrap: the ace can only go low or high
    assert solve(["AS"], [["KS", "QS", "JS"]], 1) is not None
    assert solve(["2S", "AS"], [["KH", "KD", "KC"]], 1) is None


def test_jokers_fill_gaps_and_extras_within_the_limit() -> None:
    table = [["5S", "JK", "7S"], ["9H", "9D", "9C"]]
    # the table joker moves: 5S 6S 7S from hand's 6S, the joker joins the nines
    found = solve(["6S"], table, 1)
    assert found is not None and check_solution(["6S"], table, found.table, 1) == 6
    # the run holds its one joker already (limit 1): of two hand jokers only one fits
    found = solve(["JK", "JK"], table, 1)
    assert found is not None and found.value == 25
    assert check_solution(["JK", "JK"], table, found.table, 1) == 25
    # with limit 2, two gap jokers in a row: 9C 10C JK JK KC
    found = solve(["9C", "10C", "KC", "JK", "JK"], [], 2)
    assert found is not None and found.value == 79
    # a table with more jokers than melds can hold is not solvable
    assert solve(["2C"], [["5S", "JK", "7S"], ["JK", "JK", "JK", "8D"]], 1) is None


def test_a_deep_rebuild_is_found_exactly() -> None:
    """A play that breaks two runs and a group at once (no cheap move exists)."""
    table = [["3H", "4H", "5H", "6H"], ["3D", "4D", "5D", "6D"], ["9S", "9C", "9H"]]
    hand = ["3S", "6S"]
    assert not simple_plays(hand, table, 1)
    found = first_play(hand, table, 1)
    assert found is not None and check_solution(hand, table, found.table, 1) > 0
    best = solve(hand, table, 1)
    assert best is not None and best.value == 6  # 3S and 6S together would leave 4-5 runs
