"""Ratings: known values, invariance to game order, interval coverage in simulation, the
online rating agreeing with the fit and hardly depending on the order of games."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.ratings import ELO_SCALE, Fit, OnlineRating, fit, fit_pairwise, pairwise


def two_player(winner: str, loser: str) -> list[tuple[str, int]]:
    return [(winner, 1), (loser, 2)]


def test_pairwise_decomposition_counts_ties_as_draws() -> None:
    assert pairwise([("a", 2), ("b", 1), ("c", 2)]) == [
        ("a", "b", 0.0), ("a", "c", 0.5), ("b", "c", 1.0)]


def test_fit_closed_form_for_two_bots() -> None:
    games = [two_player("a", "b")] * 3 + [two_player("b", "a")]
    result = fit(games, prior=0)
    a, b = result.ratings["a"], result.ratings["b"]
    diff = 400 * math.log10(3)  # p = 3/4  =>  odds 3
    assert a.elo - b.elo == pytest.approx(diff, abs=1e-6)
    assert (a.elo + b.elo) / 2 == pytest.approx(1500)
    # var(diff) = 1 / (n p q); each bot carries half the difference
    se = ELO_SCALE * math.sqrt(1 / (4 * 0.75 * 0.25)) / 2
    assert a.se == pytest.approx(se, rel=1e-6) and b.se == pytest.approx(se, rel=1e-6)
    assert a.interval == pytest.approx(1.959964 * se)
    los = 0.5 * (1 + math.erf((diff / ELO_SCALE) / math.sqrt(2 * 4 * (se / ELO_SCALE) ** 2)))
    assert result.los["a"]["b"] == pytest.approx(los) and result.los["b"]["a"] == \
        pytest.approx(1 - los)


def test_fit_symmetric_cases() -> None:
    draws = fit([[("a", 1), ("b", 1)]] * 5, prior=0)
    assert draws.ratings["a"].elo == pytest.approx(1500)
    cycle = [two_player("a", "b"), two_player("b", "c"), two_player("c", "a")] * 4
    result = fit(cycle, prior=0)
    assert all(r.elo == pytest.approx(1500) for r in result.ratings.values())
    assert result.los["a"]["b"] == pytest.approx(0.5)
    # a 4-seat game weighs each pair 1/3: one table is worth one game per bot
    table = fit([[("a", 1), ("b", 2), ("c", 3), ("d", 4)]] * 6, prior=1)
    elos = [table.ratings[b].elo for b in "abcd"]
    assert elos == sorted(elos, reverse=True)
    assert sum(elos) / 4 == pytest.approx(1500)


def test_prior_keeps_an_unbeaten_bot_finite() -> None:
    result = fit([two_player("a", "b")] * 10, prior=1)
    assert 1500 < result.ratings["a"].elo < 2500
    assert result.los["a"]["b"] > 0.95


@pytest.mark.parametrize("fitter", [fit, fit_pairwise], ids=["plackett-luce", "bradley-terry"])
@given(rng=st.randoms(use_true_random=False))
@settings(max_examples=20, deadline=None)
def test_fit_does_not_depend_on_game_order(fitter: Callable[..., Fit], rng: random.Random) -> None:
    bots = ["a", "b", "c", "d", "e"]
    games = []
    for _ in range(40):
        table = rng.sample(bots, rng.choice([2, 3, 4]))
        games.append([(b, rng.randint(1, len(table))) for b in table])
    shuffled = games[:]
    rng.shuffle(shuffled)
    assert fitter(games) == fitter(shuffled)


def simulate(true: Mapping[str, float], games: int, seed: int) -> list[list[tuple[str, int]]]:
    rng = random.Random(seed)
    bots = sorted(true)
    out = []
    for _ in range(games):
        a, b = rng.sample(bots, 2)
        p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
        out.append(two_player(a, b) if rng.random() < p else two_player(b, a))
    return out


def test_online_rating_agrees_with_the_fit_in_the_limit() -> None:
    true = {"a": 1650, "b": 1550, "c": 1450, "d": 1350}
    games = simulate(true, 20000, seed=3)
    batch = fit(games)
    online = OnlineRating()
    for game in games:
        online.update(game)
    mean = sum(online.rating(b) for b in true) / 4
    for bot, rating in true.items():
        assert batch.ratings[bot].elo == pytest.approx(rating, abs=20)
        assert online.rating(bot) - mean + 1500 == pytest.approx(batch.ratings[bot].elo, abs=20)
        assert batch.ratings[bot].interval < 20


@pytest.mark.parametrize("k", [2, 4])
def test_online_rating_hardly_depends_on_the_order_of_games(k: int) -> None:
    # issue 11: reshuffling the same games moved fixed-K Elo by up to 280 (k = 2) and 147
    # (k = 4), 35-60 from the truth throughout; here 2,000 games of 12 bots, 5 orders
    games, _ = simulate_placings(k, 2000, seed=1)
    batch = fit(games)
    seen: list[dict[str, float]] = []
    for order in range(5):
        shuffled = games[:]
        random.Random(order).shuffle(shuffled)
        online = OnlineRating()
        for game in shuffled:
            online.update(game)
        mean = sum(online.rating(b) for b in batch.ratings) / len(batch.ratings)
        seen.append({b: online.rating(b) - mean + 1500 for b in batch.ratings})
        error = math.sqrt(sum((seen[-1][b] - r.elo) ** 2 for b, r in batch.ratings.items())
                          / len(batch.ratings))
        assert error < 30
    assert max(abs(a[b] - seen[0][b]) for a in seen for b in a) < 100


def simulate_placings(k: int, games: int, seed: int,
                      n: int = 12) -> tuple[list[list[tuple[str, int]]], dict[str, float]]:
    """Games of k seats among n bots whose placings follow Plackett-Luce exactly (each bot's
    performance is its strength plus Gumbel noise); returns the games and the true centred
    ratings on the Elo scale."""
    rng = random.Random(seed)
    bots = [f"b{i:02d}" for i in range(n)]
    true = {b: rng.gauss(0, 0.5) for b in bots}
    out = []
    for _ in range(games):
        table = rng.sample(bots, k)
        perf = {b: true[b] - math.log(-math.log(rng.random())) for b in table}
        order = sorted(table, key=lambda b: -perf[b])
        out.append([(b, order.index(b) + 1) for b in table])
    mean = sum(true.values()) / n
    return out, {b: 1500 + ELO_SCALE * (v - mean) for b, v in true.items()}


def coverage(k: int, games: int, tournaments: int) -> float:
    hits = total = 0
    for seed in range(tournaments):
        played, true = simulate_placings(k, games, seed)
        for bot, rating in fit(played).ratings.items():
            total += 1
            hits += abs(rating.elo - true[bot]) <= rating.interval
    return hits / total


@pytest.mark.parametrize(("k", "games"), [(2, 300), (4, 150), (8, 80)])
def test_intervals_cover_95_percent(k: int, games: int) -> None:
    # issue 11: the pairwise fit's intervals covered 99.6% at k = 4 and 100% at k = 8.
    # 60 tournaments x 12 bots: the standard error of a 95% coverage is 0.8 points
    assert abs(coverage(k, games, 60) - 0.95) <= 0.025


@pytest.mark.slow
@pytest.mark.parametrize(("k", "games"), [(2, 300), (4, 150), (8, 80), (4, 40), (3, 500)])
def test_intervals_cover_95_percent_thoroughly(k: int, games: int) -> None:
    assert abs(coverage(k, games, 400) - 0.95) <= 0.02


def test_disconnected_groups_get_no_los_across() -> None:
    games = [two_player("a", "b"), two_player("b", "a"), two_player("a", "b"),
             two_player("c", "d"), two_player("d", "c"), two_player("c", "d")]
    result = fit(games)
    assert result.components == (("a", "b"), ("c", "d"))
    assert set(result.los["a"]) == {"b"} and set(result.los["d"]) == {"c"}
