"""The speed of the "may this seat draw?" check on late-game tables, kept exact.

The dead-state test (`dp_bound.SuitBound`) is a lower bound on the jokers a solution
places, used to cut states: a bound too high would cut live states and change an answer, so
the searches with and without it must agree everywhere, on random tables against brute
force (test_solver.py, test_feasibility.py run with it on) and here on real late-game
positions, where it does its work. The check races the table and its mirror: plays found
on the mirror must be legal on the table."""

from __future__ import annotations

import random

import pytest

from arena.games.rummy import solver
from arena.games.rummy.cards import CARD_TYPES, CODES, INDEX, mirrored
from arena.games.rummy.dp import OutOfBudget, RankDP
from arena.games.rummy.dp_bound import INFINITE, UNIT, SuitBound
from arena.games.rummy.solver import CHECK_NODES, first_play, required_play, solve

from .brute import best_value, random_instance
from .test_feasibility import game_positions
from .test_solver import check_solution


def counts(cards: list[str]) -> list[int]:
    pool = [0] * CARD_TYPES
    for code in cards:
        pool[INDEX[code]] += 1
    return pool


def start_need(required: list[str], jokers: int, max_jokers: int) -> int:
    bound = SuitBound(counts(required), [0] * CARD_TYPES, jokers, max_jokers)
    return bound.total(1, 0, ((), (), (), ()))


def test_a_group_of_two_suits_needs_a_joker_shared_by_its_cards() -> None:
    assert start_need(["JH", "JD"], 1, 1) == UNIT  # half a joker each: one in all
    assert start_need(["JH", "JD", "JC"], 1, 1) == 0  # three suits need none
    assert start_need(["JH"], 2, 2) == 2 * UNIT  # one suit: two jokers
    assert start_need(["JH"], 2, 1) >= INFINITE  # not with one joker a meld


def test_a_run_with_a_gap_needs_its_joker_and_a_short_run_its_extras() -> None:
    assert start_need(["5S", "7S"], 1, 1) == UNIT
    assert start_need(["5S", "6S"], 1, 1) == UNIT  # 5S 6S and an extra at either end
    assert start_need(["5S", "6S", "7S"], 1, 1) == 0


def test_a_table_ace_may_sit_at_either_end() -> None:
    # A-2-3 low or Q-K-A high: neither end needs a joker
    assert start_need(["AS", "2S", "3S"], 1, 1) == 0
    assert start_need(["QS", "KS", "AS"], 1, 1) == 0


@pytest.mark.parametrize("max_jokers", [1, 2, 3])
def test_the_bound_never_exceeds_the_jokers_of_a_solution(max_jokers: int) -> None:
    """Everything required, jokers in hand: every joker is placed, so a bound above them
    would call a solvable table dead: with the plain shares, and with tightened prices."""
    solvable = 0
    for seed in range(150):
        rng = random.Random(f"bound:{max_jokers}:{seed}")
        hand, table = random_instance(rng, max_jokers)
        cards = [c for m in table for c in m] + hand + ["JK"] * rng.randrange(0, 3)
        search = RankDP(counts(cards), [0] * CARD_TYPES, max_jokers)
        search.suit_bound = None
        if search.solve() < 0:
            continue
        solvable += 1
        jokers = cards.count("JK")
        assert start_need(cards, jokers, min(max_jokers, jokers)) <= UNIT * jokers, cards
        # and whatever prices the subgradient steps reach (any prices give a lower bound)
        priced = SuitBound(counts(cards), [0] * CARD_TYPES, jokers, min(max_jokers, jokers))
        assert priced.tighten(16, 16) <= UNIT * jokers, cards
    assert solvable > 30


def test_with_and_without_the_bound_the_best_plays_agree_on_game_positions() -> None:
    for hand, table in game_positions()[:40]:
        plain = RankDP(counts([c for m in table for c in m]), counts(hand), 1)
        plain.suit_bound = None
        found = solve(hand, table, 1)
        assert (found.value if found else 0) == max(0, plain.solve()), (hand, table)


# late-game positions of real games (solver seats against random ones), where the check
# used to stop at its bound: 60-80 table cards, two jokers, seven or eight aces
STRESS = [
    (["3S"], [["AS", "AH", "AD", "AC"], ["AS", "AD", "AC"], ["2S", "2D", "2C"],
              ["3S", "3D", "3C"], ["4H", "4D", "4C"], ["6S", "6H", "6C"], ["4D", "5D", "6D"],
              ["4C", "5C", "6C"], ["8H", "8D", "8C"], ["6S", "7S", "8S"],
              ["4H", "5H", "6H", "7H", "8H"], ["9H", "9D", "9C"], ["10S", "10H", "10C"],
              ["JH", "JD", "JK"], ["QS", "QD", "QC"], ["9D", "10D", "JD", "QD"],
              ["KS", "KC", "JK"], ["KS", "KH", "KC"]]),
    (["3S", "QS"], [["AS", "AH", "AD", "AC"], ["AS", "AD", "AC"], ["2S", "2D", "2C"],
                    ["3S", "3D", "3C"], ["4S", "4H", "4D", "4C"], ["6S", "6H", "6C"],
                    ["4D", "5D", "6D"], ["4C", "5C", "6C"], ["8H", "8D", "8C"],
                    ["6S", "7S", "8S"], ["4H", "5H", "6H", "7H", "8H"], ["9H", "9D", "9C"],
                    ["10S", "10H", "10C"], ["JH", "JD", "JK"], ["QS", "QD", "QC"],
                    ["8D", "9D", "10D", "JD", "QD"], ["KS", "KC", "JK"], ["KS", "KH", "KC"]]),
    (["10S", "JH", "9C"], [["AS", "AD", "AC"], ["AS", "AH", "AD", "AC"], ["2S", "2D", "2C"],
                           ["3S", "3D", "3C"], ["4S", "4H", "4D"], ["4H", "4D", "4C"],
                           ["5H", "5D", "5C"], ["6S", "6H", "6D", "6C"], ["4C", "5C", "6C"],
                           ["8H", "8D", "8C"], ["6S", "7S", "8S"], ["6H", "7H", "8H"],
                           ["9H", "9D", "9C"], ["10S", "10H", "10C"], ["JH", "JD", "JK"],
                           ["QS", "QD", "QC"], ["8D", "9D", "10D", "JD", "QD"],
                           ["KS", "KC", "JK"], ["KS", "KH", "KC"]]),
]
ANSWERS = [False, True, False]


@pytest.mark.parametrize("index", range(len(STRESS)))
def test_the_check_settles_late_game_positions_with_the_answer_of_the_plain_search(
        index: int) -> None:
    hand, table = STRESS[index]
    plain = RankDP(counts([c for m in table for c in m]), counts(hand), 1)
    plain.suit_bound = None
    assert (plain.gains() > 0) == ANSWERS[index]
    # these took the plain search 11,000-19,000 states, past the check's bound
    assert plain.nodes > CHECK_NODES
    found = first_play(hand, table, 1, node_limit=CHECK_NODES)  # no OutOfBudget
    assert (found is not None) == ANSWERS[index]
    assert (required_play(hand, table, 1) is not None) == ANSWERS[index]
    if found is not None:
        check_solution(hand, table, found.table, 1)
    bounded = RankDP(counts([c for m in table for c in m]), counts(hand), 1)
    bounded.gains()
    assert bounded.nodes < min(plain.nodes, CHECK_NODES)


def test_the_bound_turned_off_leaves_a_stress_position_unsettled() -> None:
    """The property the check's figures rest on: without the bound, the cap is hit."""
    hand, table = STRESS[0]
    plain = RankDP(counts([c for m in table for c in m]), counts(hand), 1, CHECK_NODES)
    plain.suit_bound = None
    with pytest.raises(OutOfBudget):
        plain.gains()


def test_a_mirrored_table_has_the_mirrored_plays() -> None:
    cards = [code for code in CODES]
    assert [mirrored(mirrored(c)) for c in cards] == cards
    assert [mirrored(c) for c in ("AS", "2S", "3S", "KH", "JK")] == ["AS", "KS", "QS", "2H", "JK"]
    for seed in range(60):
        hand, table = random_instance(random.Random(f"mirror:{seed}"), 1)
        flipped = [[mirrored(c) for c in meld] for meld in table]
        assert (solve(hand, table, 1) is None) == \
            (solve([mirrored(c) for c in hand], flipped, 1) is None)


@pytest.mark.parametrize("turn", [1, 3])
def test_plays_found_on_the_mirror_are_legal_on_the_table(
        turn: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Turns of a few states make the two directions alternate all the time, so about
    half the answers come from the mirrored search and its melds, mirrored back."""
    monkeypatch.setattr(solver, "MIRROR_TURN", turn)
    answers = []
    for seed in range(120):
        hand, table = random_instance(random.Random(f"turns:{turn}:{seed}"), 1)
        expected = best_value(hand, [c for m in table for c in m], 1)
        found = first_play(hand, table, 1)
        assert (found is None) == (expected == 0), (hand, table)
        if found is not None:
            check_solution(hand, table, found.table, 1)
        answers.append(expected > 0)
    assert 10 < sum(answers) < 110


# a late-game table (75 cards, two jokers) where the feasibility search needs about
# 56,000 states upwards and 1,600 downwards (on the mirror)
DOWNWARDS_HAND = ["JH", "8D", "8C"]
DOWNWARDS_TABLE = [
    ["AS", "AH", "AD", "AC"], ["2S", "2D", "2C"], ["3S", "3H", "3D", "3C"], ["4S", "4H", "4D"],
    ["6S", "6H", "6D"], ["3D", "4D", "5D", "6D"], ["2C", "3C", "4C", "5C", "6C"],
    ["4C", "5C", "6C"], ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S"],
    ["4H", "5H", "6H", "7H", "8H"], ["9H", "9D", "9C"], ["8C", "9C", "10C"],
    ["7H", "8H", "9H", "10H", "JH"], ["10S", "JK", "QS"], ["7D", "8D", "9D", "10D", "JD", "QD"],
    ["KS", "KH", "KC"], ["QS", "KS", "AS"], ["JD", "QD", "JK", "AD"], ["QC", "KC", "AC"]]


def test_the_check_races_the_table_and_its_mirror() -> None:
    upwards = RankDP(counts([c for m in DOWNWARDS_TABLE for c in m]), counts(DOWNWARDS_HAND),
                     1, CHECK_NODES)
    with pytest.raises(OutOfBudget):
        upwards.gains()
    found = required_play(DOWNWARDS_HAND, DOWNWARDS_TABLE, 1)
    assert found is not None
    check_solution(DOWNWARDS_HAND, DOWNWARDS_TABLE, found.table, 1)
