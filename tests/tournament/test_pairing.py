"""Pairing properties: one table per bot per round, no repeated pairing while another
exists, seats balanced within one, byes to different bots, determinism."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.pairing import (
    History,
    RoundPlan,
    gauntlet,
    round_robin,
    swiss_round,
    table_sizes,
)
from arena.tournament.seating import balance, seat_counts


def names(n: int) -> list[str]:
    return [f"b{i:02d}" for i in range(n)]


def assert_once_per_round(plan: RoundPlan) -> None:
    seated = [b for t in plan.tables for b in t.bots]
    assert len(seated) == len(set(seated)), plan
    assert set(seated).isdisjoint(plan.byes)
    for table in plan.tables:
        assert all(sorted(s) == sorted(table.bots) for s in table.seatings)


def assert_seats_within_one(plans: list[RoundPlan]) -> None:
    games = [s for p in plans for t in p.tables for s in t.seatings]
    width = max(len(s) for s in games)
    for bot, seats in seat_counts(games).items():
        held = [seats[i] for i in range(width)]
        assert max(held) - min(held) <= 1, (bot, held)


def meetings(plans: list[RoundPlan]) -> Counter[tuple[str, str]]:
    return History.of(plans).meetings


@given(st.integers(2, 12), st.integers(1, 3))
def test_two_player_round_robin_meets_everyone_with_balanced_seats(n: int, repeats: int) -> None:
    bots = names(n)
    plans = round_robin(bots, 2, 2, repeats, seed=5)
    for plan in plans:
        assert_once_per_round(plan)
    met = meetings(plans)
    assert all(met[pair] == 1 for pair in itertools.combinations(bots, 2))
    assert len(met) == n * (n - 1) // 2
    assert_seats_within_one(plans)
    byes = Counter(b for p in plans for b in p.byes)
    assert max(byes.values(), default=0) <= 1


@given(st.integers(3, 9), st.integers(3, 5), st.integers(1, 5))
@settings(max_examples=60, deadline=None)
def test_table_round_robin_uses_every_subset_with_balanced_seats(
        n: int, size: int, repeats: int) -> None:
    size = min(size, n)
    bots = names(n)
    plans = round_robin(bots, size, size, repeats, seed=1)
    for plan in plans:
        assert_once_per_round(plan)
    tables = [frozenset(t.bots) for p in plans for t in p.tables]
    assert sorted(map(sorted, tables)) == sorted(map(sorted, map(frozenset,
                                                 itertools.combinations(bots, size))))
    met = meetings(plans)
    assert len(set(met.values())) == 1  # every pair meets equally often
    assert_seats_within_one(plans)


@given(st.integers(12, 40), st.sampled_from([3, 4, 5]), st.integers(2, 6))
@settings(max_examples=30, deadline=None)
def test_balanced_design_spreads_meetings_and_byes(n: int, size: int, rounds: int) -> None:
    bots = names(n)
    plans = round_robin(bots, size, size, 1, seed=3, rounds=rounds)
    assert len(plans) == rounds
    for plan in plans:
        assert_once_per_round(plan)
        assert len(plan.byes) == n % size
    byes = Counter(b for p in plans for b in p.byes)
    assert max(byes.values(), default=0) - min((byes[b] for b in bots), default=0) <= 1
    played = Counter(b for p in plans for t in p.tables for b in t.bots)
    assert max(played.values()) - min(played[b] for b in bots) <= 1


def test_fallback_tables_of_k_minus_one() -> None:
    assert table_sizes(10, 4, 3) == ([4, 3, 3], 0)
    assert table_sizes(10, 4, 4) == ([4, 4], 2)
    assert table_sizes(7, 2, 2) == ([2, 2, 2], 1)
    assert table_sizes(9, 4, 3) == ([3, 3, 3], 0)
    assert table_sizes(2, 4, 3) == ([], 2)
    plans = round_robin(names(10), 4, 3, 1, seed=2, rounds=3)
    assert all(sorted(len(t.bots) for t in p.tables) == [3, 3, 4] and not p.byes
               for p in plans)


def has_perfect_matching(bots: list[str], history: History) -> bool:
    if not bots:
        return True
    top, rest = bots[0], bots[1:]
    return any(not history.met(top, o) and has_perfect_matching(
        [b for b in rest if b != o], history) for o in rest)


def play_swiss(n: int, size: int, rounds: int, seed: int) -> list[RoundPlan]:
    rng = random.Random(seed)
    bots = names(n)
    points: Counter[str] = Counter()
    plans: list[RoundPlan] = []
    for number in range(1, rounds + 1):
        ranked = sorted(bots, key=lambda b: (-points[b], b))
        history = History.of(plans)
        plan = swiss_round(number, ranked, history, size, size, 1)
        assert plan == swiss_round(number, ranked, history, size, size, 1)
        assert_once_per_round(plan)
        if size == 2:
            playing = [b for b in ranked if b not in plan.byes]
            if has_perfect_matching(playing, history):
                assert all(not history.met(*t.bots) for t in plan.tables), plan
        for table in plan.tables:
            points[rng.choice(table.bots)] += 1
        plans.append(plan)
    return plans


@given(st.integers(2, 9), st.integers(1, 8), st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_swiss_two_player_never_repeats_while_another_pairing_exists(
        n: int, rounds: int, seed: int) -> None:
    plans = play_swiss(n, 2, rounds, seed)
    byes = [b for p in plans for b in p.byes]
    if rounds <= n:
        assert len(byes) == len(set(byes))  # byes go to different bots


@given(st.integers(5, 30), st.sampled_from([3, 4]), st.integers(1, 6), st.integers(0, 10**6))
@settings(max_examples=40, deadline=None)
def test_swiss_tables_byes_go_to_different_bots(n: int, size: int, rounds: int,
                                                 seed: int) -> None:
    plans = play_swiss(n, size, rounds, seed)
    byes = [b for p in plans for b in p.byes]
    if len(byes) <= n:
        assert len(byes) == len(set(byes))


def test_swiss_pairs_top_half_against_bottom_half_and_alternates_seats() -> None:
    bots = names(8)
    first = swiss_round(1, bots, History(), 2, 2, 1)
    # one score group: S1 = b00..b03 against S2 = b04..b07, the higher-ranked first on
    # even boards
    assert [t.bots for t in first.tables] == [("b00", "b04"), ("b05", "b01"),
                                              ("b02", "b06"), ("b07", "b03")]
    points = {b: 1.0 if b < "b04" else 0.0 for b in bots}
    second = swiss_round(2, bots, History.of([first]), 2, 2, 1, points)
    # score groups b00..b03 and b04..b07; b00-b02 (and b04-b06) would put two bots that
    # must take the same seat together, so the Dutch transpositions b00-b03, b01-b02 (and
    # b04-b07, b05-b06), each in the seat it needs
    assert [t.bots for t in second.tables] == [("b03", "b00"), ("b01", "b02"),
                                               ("b04", "b07"), ("b06", "b05")]


@given(st.integers(1, 3), st.integers(2, 8), st.sampled_from([2, 3, 4]), st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_gauntlet_challengers_meet_only_the_field(c: int, f: int, size: int,
                                                  repeats: int) -> None:
    challengers, field = [f"c{i}" for i in range(c)], names(f)
    plans = gauntlet(challengers, field, size, min(size, f + 1), repeats, seed=4)
    met = meetings(plans)
    for plan in plans:
        assert_once_per_round(plan)
        for table in plan.tables:
            assert sum(b in challengers for b in table.bots) == 1
    for ch in challengers:
        counts = {met[(ch, b) if ch < b else (b, ch)] for b in field}
        assert min(counts) >= 1 and max(counts) - min(counts) <= 1


def test_balance_fixes_a_lopsided_schedule() -> None:
    games = [["a", "b"] for _ in range(6)] + [["a", "c"] for _ in range(4)]
    balance(games)
    counts = seat_counts(games)
    assert counts["a"][0] == counts["a"][1] == 5


def test_round_plan_json_round_trips() -> None:
    plan = round_robin(names(5), 2, 2, 2, seed=9)[0]
    assert RoundPlan.from_json(plan.to_json()) == plan
