"""The statistics of `arena compare`: the GSPRT's error rates by simulation (a quick variant by
default, a thorough one with -m slow), its LLR against a closed form, the Elo estimate and
LOS, and what duplicate deals save."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from arena.tournament.sprt import (
    PRIOR_DEALS,
    Hypotheses,
    Pairing,
    Sample,
    Sequential,
    Verdict,
    elo,
    expected_x,
    llr,
    logistic,
    los,
)

Deal = Callable[[random.Random], tuple[float, float]]


def head_to_head(true_elo: float, shared: float = 0.7) -> Deal:
    """Two games of a 2-seat game: the candidate's in seat 0, then the base's in seat 0.

    Each game is won by the seat-0 bot when the deal's luck u is below its expected score;
    the second game reuses the first game's luck with probability `shared` (the deal)."""
    def deal(rng: random.Random) -> tuple[float, float]:
        u = rng.random()
        v = u if rng.random() < shared else rng.random()
        return float(u < logistic(true_elo)), float(v < logistic(-true_elo))
    return deal


def replacement(true_elo: float, level: float, opponents: int, shared: float = 0.7) -> Deal:
    """The candidate, then the base, against `opponents` of the same field: each meeting is
    won with the logistic chance of the bot's advantage over the field, and the base's game
    reuses the candidate's luck per opponent with probability `shared`."""
    def deal(rng: random.Random) -> tuple[float, float]:
        c = b = 0.0
        for _ in range(opponents):
            u = rng.random()
            v = u if rng.random() < shared else rng.random()
            c += u < logistic(level + true_elo / 2)
            b += v < logistic(level - true_elo / 2)
        return c / opponents, b / opponents
    return deal


def run_test(deal: Deal, hypotheses: Hypotheses, pairing: Pairing, rng: random.Random,
             cap: int = 20_000) -> tuple[Verdict, int]:
    test = Sequential(hypotheses, pairing)
    for n in range(1, cap + 1):
        verdict = test.add(*deal(rng))
        if verdict is not None:
            return verdict, n
    return Verdict.INCONCLUSIVE, cap


def error_rates(deal_of: Callable[[float], Deal], hypotheses: Hypotheses, pairing: Pairing,
                runs: int, seed: int) -> tuple[float, float, int]:
    """Return (false H1 rate under elo0, false H0 rate under elo1, inconclusive runs)."""
    rng = random.Random(seed)
    under0 = [run_test(deal_of(hypotheses.elo0), hypotheses, pairing, rng) for _ in range(runs)]
    under1 = [run_test(deal_of(hypotheses.elo1), hypotheses, pairing, rng) for _ in range(runs)]
    stuck = sum(v is Verdict.INCONCLUSIVE for v, _ in under0 + under1)
    return (sum(v is Verdict.H1 for v, _ in under0) / runs,
            sum(v is Verdict.H0 for v, _ in under1) / runs, stuck)


def within(rate: float, nominal: float, runs: int) -> bool:
    """At most the nominal rate plus three binomial standard errors."""
    return rate <= nominal + 3 * math.sqrt(nominal * (1 - nominal) / runs)


SCENARIOS = {
    "head-to-head": (lambda e: head_to_head(e), Pairing.HEAD_TO_HEAD),
    "replacement, 3 opponents of about equal strength":
        (lambda e: replacement(e, 100, 3), Pairing.REPLACEMENT),
    "replacement, 1 opponent far stronger": (lambda e: replacement(e, -300, 1, 0.9),
                                             Pairing.REPLACEMENT),
}


@pytest.mark.parametrize("scenario", ["head-to-head",
                                      "replacement, 3 opponents of about equal strength"])
def test_error_rates_quick(scenario: str) -> None:
    deal_of, pairing = SCENARIOS[scenario]
    hypotheses = Hypotheses(0, 80, 0.05, 0.05)
    false_h1, false_h0, stuck = error_rates(deal_of, hypotheses, pairing, 150, 11)
    assert within(false_h1, 0.05, 150), false_h1
    assert within(false_h0, 0.05, 150), false_h0
    assert stuck == 0


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("bounds", [(0, 25, 0.05, 0.05), (-10, 40, 0.1, 0.02)])
def test_error_rates_thorough(scenario: str, bounds: tuple[float, float, float, float]) -> None:
    deal_of, pairing = SCENARIOS[scenario]
    hypotheses = Hypotheses(*bounds)
    false_h1, false_h0, stuck = error_rates(deal_of, hypotheses, pairing, 500, 12)
    assert within(false_h1, hypotheses.alpha, 500), false_h1
    assert within(false_h0, hypotheses.beta, 500), false_h0
    assert stuck == 0


def test_bounds_are_walds() -> None:
    hyp = Hypotheses(0, 5, 0.05, 0.1)
    assert hyp.lower == pytest.approx(math.log(0.1 / 0.95))
    assert hyp.upper == pytest.approx(math.log(0.9 / 0.05))


@pytest.mark.parametrize("bad", [(5, 5, 0.05, 0.05), (0, 5, 0, 0.05), (0, 5, 0.05, 0.5),
                                 (0, 2000, 0.05, 0.05)])
def test_bad_hypotheses_are_refused(bad: tuple[float, float, float, float]) -> None:
    with pytest.raises(ValueError):
        Hypotheses(*bad)


def test_llr_of_won_and_lost_deals_is_the_binomial_one() -> None:
    """With x only 0 or 1 the best fit of mean mu is Bernoulli(mu): the LLR has a closed
    form (the prior's half deal puts a quarter deal on each side)."""
    hyp = Hypotheses(0, 50)
    sample = Sample()
    for c, b in [(1, 0)] * 7 + [(0, 1)] * 3:
        sample = sample.add(c, b)
    mu0, mu1 = logistic(0), logistic(50)
    won, lost = 7 + PRIOR_DEALS / 2, 3 + PRIOR_DEALS / 2
    expected = won * math.log(mu1 / mu0) + lost * math.log((1 - mu1) / (1 - mu0))
    assert llr(sample, hyp, Pairing.HEAD_TO_HEAD) == pytest.approx(expected, rel=1e-9)


def test_ties_lead_to_h0_and_wins_to_h1() -> None:
    for deal, verdict in [((0.5, 0.5), Verdict.H0), ((1.0, 0.0), Verdict.H1),
                          ((0.0, 1.0), Verdict.H0)]:
        test = Sequential(Hypotheses(0, 50), Pairing.HEAD_TO_HEAD)
        for _ in range(1000):
            if test.add(*deal) is not None:
                break
        assert test.verdict is verdict, deal
        assert test.add(*deal) is verdict  # a decided test takes no more deals
        assert test.sample.n < 1000


def test_replacement_means_follow_the_field_level() -> None:
    # against a field the bots crush, a given Elo difference moves the score less
    assert expected_x(0, Pairing.REPLACEMENT, 400) == pytest.approx(0.5)
    near = expected_x(50, Pairing.REPLACEMENT, 0) - 0.5
    far = expected_x(50, Pairing.REPLACEMENT, 400) - 0.5
    assert 0 < far < near / 2


@pytest.mark.parametrize("pairing,deal", [
    (Pairing.HEAD_TO_HEAD, head_to_head(60)),
    (Pairing.REPLACEMENT, replacement(60, 100, 3)),
])
def test_elo_estimate_covers_the_truth(pairing: Pairing, deal: Deal) -> None:
    rng = random.Random(5)
    sample = Sample()
    for _ in range(4000):
        sample = sample.add(*deal(rng))
    estimate, half = elo(sample, pairing)
    assert abs(estimate - 60) < half < 15
    assert los(sample) > 0.999


def test_los_is_one_half_for_equal_bots_and_symmetric() -> None:
    a, b = Sample(), Sample()
    for c, d in [(1, 0), (0, 1), (0.5, 0.5), (1, 0), (0, 0)]:
        a, b = a.add(c, d), b.add(d, c)
    assert los(a) == pytest.approx(1 - los(b))
    assert los(Sample().add(1, 1).add(0, 0)) == pytest.approx(0.5)


def test_variance_reduction_matches_the_shared_luck() -> None:
    """With luck shared with probability rho, cov(c, b) = rho p q for Bernoulli(p) c and b of
    equal p: the factor is 2pq / (2pq - 2 rho pq) = 1 / (1 - rho)."""
    rng = random.Random(3)
    for rho, factor in [(0.0, 1.0), (0.5, 2.0), (0.75, 4.0)]:
        sample = Sample()
        deal = head_to_head(0, shared=rho)
        for _ in range(20_000):
            c, b = deal(rng)
            sample = sample.add(c, b)
        assert sample.variance_reduction() == pytest.approx(factor, rel=0.1), rho


def test_duplicate_deals_need_fewer_deals_than_fresh_ones() -> None:
    """The same bots, the same test: deals that share their luck decide in fewer deals."""
    hyp = Hypotheses(0, 60)
    rng = random.Random(4)
    needed = {}
    for rho in (0.0, 0.75):
        runs = [run_test(replacement(60, 0, 3, rho), hyp, Pairing.REPLACEMENT, rng)[1]
                for _ in range(60)]
        needed[rho] = sum(runs) / len(runs)
    assert needed[0.75] < needed[0.0] / 2
