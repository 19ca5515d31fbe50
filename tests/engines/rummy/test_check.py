"""The draw check hand card by hand card (`check.HandCheck`) and the priced joker bound it
reads (`dp_bound.SuitBound.tighten`), kept exact.

A card the prices rule out must be in no play, and the check's answer must be the whole
hand's: against brute force on random tables, and against the whole-hand search of before
(`RankDP.gains`, no dead-state test, no bound on its states) on positions of real games."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from arena.games.rummy.cards import CARD_TYPES, INDEX, mirrored
from arena.games.rummy.check import TIGHTEN_ROUNDS, TIGHTEN_TRIAL, HandCheck
from arena.games.rummy.dp import RankDP
from arena.games.rummy.dp_bound import INFINITE, NO_RUNS, UNIT, SuitBound

from .brute import best_value, partitions_into_melds, random_instance
from .test_bound import STRESS
from .test_feasibility import game_positions
from .test_solver import check_solution


def counts(cards: list[str]) -> list[int]:
    pool = [0] * CARD_TYPES
    for code in cards:
        pool[INDEX[code]] += 1
    return pool


def in_some_play(card: str, hand: list[str], required: list[str], max_jokers: int) -> bool:
    """Brute force: do the table cards and some part of the hand holding `card` split
    into melds?"""
    rest = list(hand)
    rest.remove(card)
    return any(partitions_into_melds([*required, card, *more], max_jokers)
               for size in range(len(rest) + 1) for more in combinations(rest, size))


@pytest.mark.parametrize("max_jokers", [1, 2, 3])
def test_on_random_tables_the_card_by_card_check_is_the_brute_forces(max_jokers: int) -> None:
    answers = []
    for seed in range(150):
        hand, table = random_instance(random.Random(f"check:{max_jokers}:{seed}"), max_jokers)
        required = [c for m in table for c in m]
        found = HandCheck(required, hand, max_jokers, None, 3).play()
        expected = best_value(hand, required, max_jokers)
        assert (found is None) == (expected == 0), (hand, table)
        if found is not None:
            check_solution(hand, table, tuple(found), max_jokers)
        answers.append(expected > 0)
    assert 10 < sum(answers) < len(answers) - 10


@pytest.mark.parametrize("max_jokers", [1, 2])
def test_a_card_the_prices_rule_out_is_in_no_play(max_jokers: int) -> None:
    """The tightened bound of the table and one hand card (the other hand cards optional)
    above the jokers there are: then no play holds the card, which brute force confirms."""
    ruled_out = kept = 0
    for seed in range(200):
        rng = random.Random(f"prices:{max_jokers}:{seed}")
        hand, table = random_instance(rng, max_jokers)
        required = [c for m in table for c in m] + ["JK"] * rng.randrange(0, 2)
        prices = None  # the first card's from the plain shares, the next from the last's
        for card in sorted(set(hand) - {"JK"}):
            rest = list(hand)
            rest.remove(card)
            cards = [*required, card]
            jokers = cards.count("JK") + rest.count("JK")
            bound = SuitBound(counts(cards), counts(rest), jokers, min(max_jokers, jokers))
            if prices is not None:
                bound.use_prices(prices)
            tightened = bound.tighten(TIGHTEN_ROUNDS, TIGHTEN_TRIAL) if jokers else 0
            prices = bound.price
            if tightened > UNIT * jokers:
                ruled_out += 1
                assert not in_some_play(card, hand, required, max_jokers), (card, hand, table)
            else:
                kept += 1
    assert ruled_out > 20 and kept > 20


def test_the_one_pass_programme_of_a_suit_is_the_lazy_one_under_tightened_prices() -> None:
    """`SuitBound._solve` (one pass over the cached programme, the path traced after)
    against `need` worked out state by state, under the prices some rounds reach."""
    for seed in range(60):
        rng = random.Random(f"one-pass:{seed}")
        hand, table = random_instance(rng, 2)
        cards = [c for m in table for c in m] + ["JK"]
        tightened = SuitBound(counts(cards), counts(hand), 1 + hand.count("JK"), 1)
        tightened.tighten(rng.randrange(1, 6), 6)
        lazy = SuitBound(counts(cards), counts(hand), 1 + hand.count("JK"), 1)
        lazy.use_prices(tightened.price)
        for suit in range(4):
            start, copies = tightened._solve(suit, fill=False)
            assert min(INFINITE, start) == min(INFINITE, lazy.need(1, suit, ())), cards
            if start < INFINITE:  # the traced path sends copies the suit holds
                assert all(copies[v] <= lazy.avail[suit][v] for v in range(len(copies)))


def test_the_mirror_takes_the_prices_and_keeps_the_bound_at_the_start() -> None:
    for seed in range(60):
        rng = random.Random(f"mirror-prices:{seed}")
        hand, table = random_instance(rng, 1)
        cards = [c for m in table for c in m] + hand + ["JK"]
        up = SuitBound(counts(cards), [0] * CARD_TYPES, cards.count("JK"), 1)
        up.tighten(TIGHTEN_ROUNDS, TIGHTEN_ROUNDS)
        down = SuitBound(counts([mirrored(c) for c in cards]), [0] * CARD_TYPES,
                         cards.count("JK"), 1)
        down.take_mirrored(up)
        # INFINITE or more: no number of jokers will do, either way
        assert min(INFINITE, down.total(1, 0, NO_RUNS)) == \
            min(INFINITE, up.total(1, 0, NO_RUNS)), cards


def whole_hand(hand: list[str], table: list[list[str]]) -> bool:
    """The check of before: the whole hand optional, no dead-state test, no bound."""
    search = RankDP(counts([c for m in table for c in m]), counts(hand), 1)
    search.suit_bound = None
    return search.gains() > 0


@pytest.mark.parametrize("index", range(0, 60, 3))
def test_on_game_positions_the_check_answers_as_the_whole_hand_search(index: int) -> None:
    hand, table = game_positions()[index]
    found = HandCheck([c for m in table for c in m], hand, 1, None, 1_000).play()
    assert (found is not None) == whole_hand(hand, table), (hand, table)
    if found is not None:
        check_solution(hand, table, tuple(found), 1)


@pytest.mark.parametrize("index", range(len(STRESS)))
def test_on_late_game_tables_the_check_answers_as_the_whole_hand_search(index: int) -> None:
    hand, table = STRESS[index]
    found = HandCheck([c for m in table for c in m], hand, 1, None, 1_000).play()
    assert (found is not None) == whole_hand(hand, table)
    if found is not None:
        check_solution(hand, table, tuple(found), 1)
