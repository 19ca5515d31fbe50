"""Matchmaking: deterministic, new entries first, close and uncertain opponents, balanced
seats, and better rankings than uniform random tables in a simulated ladder."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.core.errors import ConfigError
from arena.ladder import rating
from arena.ladder.matchmaking import Entrant, plan_round, unsettled
from tests.ladder.simulation import simulate


def field(count: int = 10, seats: int = 2) -> list[Entrant]:
    """Entrants with settled beliefs, 3 units apart (beta is 4.2)."""
    return [Entrant(f"e{i}", 25.0 + 3 * i, 1.0, 50, (25,) * seats) for i in range(count)]


def test_the_same_beliefs_give_the_same_tables_and_another_seed_others() -> None:
    entrants = field()
    first = plan_round(entrants, 8, 2, 0.1, seed=1, number=5)
    assert plan_round(list(reversed(entrants)), 8, 2, 0.1, seed=1, number=5) == first
    assert plan_round(entrants, 8, 2, 0.1, seed=2, number=5) != first


def test_a_new_entry_plays_the_first_table() -> None:
    new = Entrant("newcomer", rating.MODEL.mu, rating.MODEL.sigma, 0, (0, 0, 0, 0))
    for number in range(1, 20):
        tables = plan_round([*field(seats=4), new], 3, 4, 0.1, seed=3, number=number)
        assert "newcomer" in tables[0]


def test_without_exploration_opponents_are_the_closest_in_strength() -> None:
    entrants = field(count=20)
    tables = plan_round(entrants, 10, 2, 0.0, seed=4, number=1)
    gaps = [abs(int(a[1:]) - int(b[1:])) for a, b in tables]
    assert max(gaps) <= 2, tables
    explored = plan_round(entrants, 10, 2, 1.0, seed=4, number=1)
    assert max(abs(int(a[1:]) - int(b[1:])) for a, b in explored) > 5


def test_uncertain_beliefs_are_unsettled_at_a_distance() -> None:
    sure, unsure = Entrant("a", 25, 1, 9, ()), Entrant("b", 31, 1, 9, ())
    assert unsettled(sure, unsure) < 0.01
    assert unsettled(sure, Entrant("b", 31, 8, 0, ())) > 0.4
    assert unsettled(sure, Entrant("b", 25, 1, 9, ())) == pytest.approx(1.0)


def test_seats_are_balanced_over_rounds() -> None:
    entrants = field(count=8, seats=4)
    held = {e.entry: [0, 0, 0, 0] for e in entrants}
    for number in range(1, 41):
        now = [Entrant(e.entry, e.mu, e.sigma, e.games, tuple(held[e.entry]))
               for e in entrants]
        for seating in plan_round(now, 2, 4, 0.1, seed=5, number=number):
            for seat, entry in enumerate(seating):
                held[entry][seat] += 1
    for entry, counts in held.items():
        assert max(counts) - min(counts) <= 1, (entry, counts)


def test_every_table_has_distinct_entries_and_too_few_is_an_error() -> None:
    for seating in plan_round(field(count=5, seats=4), 20, 4, 0.3, seed=6, number=1):
        assert len(set(seating)) == 4
    with pytest.raises(ConfigError, match="a table needs 4"):
        plan_round(field(count=3, seats=4), 1, 4, 0.1, seed=6, number=1)


def test_focus_spreads_a_rounds_tables_over_the_field() -> None:
    seated = Counter(e for s in plan_round(field(count=16), 8, 2, 0.1, 7, 1) for e in s)
    assert max(seated.values()) <= 2


SEEDS = range(6)


def test_matchmaking_ranks_a_simulated_ladder_better_than_uniform_random_tables() -> None:
    """30 bots spread over about 1,200 Elo (7 natural-log units), 400 two-seat games:
    the Spearman correlation of the fit with the true strengths, averaged over seeds
    (docs/ladder.md reports the thorough figures, `-m slow`)."""
    matched = [simulate(30, 400, 2, matchmaking=True, seed=s, spread=7.0) for s in SEEDS]
    uniform = [simulate(30, 400, 2, matchmaking=False, seed=s, spread=7.0) for s in SEEDS]
    assert sum(matched) / len(SEEDS) > sum(uniform) / len(SEEDS)


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "games"), [(2, 600), (4, 300)])
def test_matchmaking_beats_uniform_tables_on_most_seeds(seats: int, games: int) -> None:
    matched = [simulate(30, games, seats, matchmaking=True, seed=s, spread=7.0)
               for s in range(12)]
    uniform = [simulate(30, games, seats, matchmaking=False, seed=s, spread=7.0)
               for s in range(12)]
    assert sum(matched) > sum(uniform)
    assert sum(m > u for m, u in zip(matched, uniform, strict=True)) >= 9
