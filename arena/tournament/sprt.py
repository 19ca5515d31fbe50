"""The statistics of `arena compare`: a sequential test on duplicate deals. Pure functions.

A deal is played twice on the same seed, once with the candidate and once with the base in
the same seat (docs/compare.md). It gives two numbers in [0, 1]: `c`, the candidate's score
in its game, and `b`, the base's score in its game, where a seat's score is the share of the
other seats it finished ahead of (a tie counts half). The deal's pair score

    x = (1 + c - b) / 2

is 1 when the candidate beat everyone and the base no one, 1/2 when they did equally well.
Deals are independent (fresh seeds); the two games of one deal are not, and that is the
point: the deal's luck is in both `c` and `b` and cancels in `c - b`.

The test is a generalized SPRT (GSPRT) on the distribution of `x`, the multinomial
generalisation of fishtest's pentanomial test: `x` takes a few values (multiples of
1 / (4 (seats - 1))), and the likelihood of the deals under a hypothesis is that of the
distribution closest to the observed one (its maximum-likelihood fit) whose mean is the
hypothesis's mean pair score. With two seats and both games played, those values are the
pentanomial's 0, 1/4, 1/2, 3/4, 1. No variance is assumed: it comes from the data. Half a
deal of prior weight, split between x = 0 and x = 1, keeps every hypothesis's fit defined
(after three deals all won, say, or when two bots play alike and every deal is a tie).

An Elo difference `elo` gives a mean pair score mu(elo); the conversion depends on how the
deal is seated (`Pairing`):

- head-to-head (two seats, candidate against base, both ways round): mean(x) is the
  candidate's expected score against the base, so mu = L(elo) with L the logistic curve
  L(d) = 1 / (1 + 10 ** (-d / 400)): the chess convention (pentanomial pairs).
- replacement (the candidate or the base sits with the same opponents): each bot's score is
  against the field. If the field's rating is R and the bots' are R + m + elo/2 and
  R + m - elo/2, then E[c] = L(m + elo/2) and E[b] = L(m - elo/2); the nuisance m is
  estimated from the data, and mu = (1 + L(m + elo/2) - L(m - elo/2)) / 2. The Elo
  difference is then the bots' difference as measured against the same field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

ELO_SCALE = 400 / math.log(10)
"""Elo points per unit of log-odds."""
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal."""
PRIOR_DEALS = 0.5
"""Weight, in deals, of the prior: half at x = 0, half at x = 1."""


class Pairing(StrEnum):
    """How a duplicate deal is seated."""

    HEAD_TO_HEAD = "head-to-head"
    """Two seats: the candidate against the base, then the seats swapped."""
    REPLACEMENT = "replacement"
    """The candidate, then the base, in one seat among the same opponents."""


class Verdict(StrEnum):
    """What the test concluded."""

    H1 = "H1"
    """The candidate is better: its Elo difference is at least `elo1` (rejecting `elo0`)."""
    H0 = "H0"
    """The candidate is not better: `elo0` holds rather than `elo1`."""
    INCONCLUSIVE = "inconclusive"
    """Neither bound was reached within the games allowed."""


@dataclass(frozen=True, slots=True)
class Hypotheses:
    """The test: H0 elo = `elo0` against H1 elo = `elo1`, with error rates alpha and beta."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds (a false "better")."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds (a missed improvement)."""

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must lie strictly between 0 and 0.5")
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 ({self.elo1:g}) must be greater than elo0 ({self.elo0:g})")
        if max(abs(self.elo0), abs(self.elo1)) > 1000:
            raise ValueError("elo0 and elo1 must lie between -1000 and 1000")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: log((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)


def logistic(elo: float) -> float:
    """Return the expected score of an Elo advantage `elo`."""
    return 1 / (1 + 10 ** (-elo / 400))


def logit_elo(score: float) -> float:
    """Return the Elo advantage whose expected score is `score` (0 < score < 1)."""
    return ELO_SCALE * math.log(score / (1 - score))


@dataclass(frozen=True, slots=True)
class Sample:
    """The deals so far: how often each pair score came, and sums of c, b, c², b² and cb."""

    n: int = 0
    sc: float = 0.0
    sb: float = 0.0
    scc: float = 0.0
    sbb: float = 0.0
    scb: float = 0.0
    counts: Mapping[float, int] = field(default_factory=dict)
    """Deals by pair score (rounded to 9 places: the same x reached by two float paths)."""

    def add(self, c: float, b: float) -> Sample:
        """Return the sample with one more deal."""
        x = round((1 + c - b) / 2, 9)
        counts = dict(self.counts)
        counts[x] = counts.get(x, 0) + 1
        return Sample(self.n + 1, self.sc + c, self.sb + b, self.scc + c * c,
                      self.sbb + b * b, self.scb + c * b, counts)

    @property
    def mean_c(self) -> float:
        """The candidate's mean score."""
        return self.sc / self.n if self.n else 0.5

    @property
    def mean_b(self) -> float:
        """The base's mean score."""
        return self.sb / self.n if self.n else 0.5

    @property
    def mean_x(self) -> float:
        """The mean pair score (1/2 when the two bots did equally well)."""
        return (1 + self.mean_c - self.mean_b) / 2

    def moments(self, prior: float = 0.0) -> tuple[float, float, float]:
        """Return the sums of squared deviations of c, of b, and of their cross products.

        `prior` adds that weight of pseudo-deals, half (c, b) = (1, 0) and half (0, 1): an
        interval then has a width even when every deal so far came out alike.
        """
        n, half = self.n + prior, prior / 2
        if n == 0:
            return 0.0, 0.0, 0.0
        sc, sb = self.sc + half, self.sb + half
        dcc = max(0.0, self.scc + half - sc * sc / n)
        dbb = max(0.0, self.sbb + half - sb * sb / n)
        return dcc, dbb, self.scb - sc * sb / n

    def variance_reduction(self) -> float | None:
        """Return how many times fewer deals the duplicate pairing needs than unpaired play.

        Unpaired play (a fresh deal for each game) gives var(c) + var(b) for c - b;
        duplicate deals give var(c) + var(b) - 2 cov(c, b). None until that is defined.
        """
        dcc, dbb, dcb = self.moments()
        paired = dcc + dbb - 2 * dcb
        if self.n < 2 or paired <= 0:
            return None
        return (dcc + dbb) / paired


def _clamped(p: float, n: int) -> float:
    """Keep a mean score off 0 and 1, where its logit is infinite (by half a deal)."""
    eps = 0.5 / (n + 1)
    return min(max(p, eps), 1 - eps)


def field_level(sample: Sample) -> float:
    """Return m, the bots' mean Elo advantage over the field (replacement pairing)."""
    c, b = _clamped(sample.mean_c, sample.n), _clamped(sample.mean_b, sample.n)
    return (logit_elo(c) + logit_elo(b)) / 2


def expected_x(elo: float, pairing: Pairing, level: float = 0.0) -> float:
    """Return the mean pair score that an Elo difference `elo` gives."""
    if pairing is Pairing.HEAD_TO_HEAD:
        return logistic(elo)
    return (1 + logistic(level + elo / 2) - logistic(level - elo / 2)) / 2


def llr(sample: Sample, hypotheses: Hypotheses, pairing: Pairing) -> float:
    """Return the log-likelihood ratio of H1 against H0 after the deals in `sample`."""
    if sample.n == 0:
        return 0.0
    level = field_level(sample) if pairing is Pairing.REPLACEMENT else 0.0
    values = [*sample.counts, 0.0, 1.0]
    weights = [float(w) for w in sample.counts.values()] + [PRIOR_DEALS / 2] * 2
    return (_fit_gap(values, weights, expected_x(hypotheses.elo0, pairing, level))
            - _fit_gap(values, weights, expected_x(hypotheses.elo1, pairing, level)))


def _fit_gap(values: Sequence[float], weights: Sequence[float], mu: float) -> float:
    """Return how much less likely the deals are under the distribution of mean `mu` that
    fits them best than under their own frequencies (a log-likelihood, >= 0).

    That fit gives value i the probability f_i / (1 + lam (x_i - mu)), f_i its observed
    frequency, where lam solves sum f_i (x_i - mu) / (1 + lam (x_i - mu)) = 0: the Lagrange
    condition of maximising the likelihood with the mean fixed. The left side falls as lam
    grows, so Newton's method safeguarded by bisection finds lam in a few steps.
    """
    gaps = [x - mu for x in values]
    low, high = -1 / max(gaps), -1 / min(gaps)  # the prior puts values on both sides of mu
    lam = 0.0
    for _ in range(200):
        slope = sum(w * d / (1 + lam * d) for w, d in zip(weights, gaps, strict=True))
        if slope > 0:
            low = lam
        else:
            high = lam
        curve = sum(w * d * d / (1 + lam * d) ** 2 for w, d in zip(weights, gaps, strict=True))
        step = lam + slope / curve
        step = step if low < step < high else (low + high) / 2
        if abs(step - lam) < 1e-12:
            break
        lam = step
    return sum(w * math.log1p(lam * d) for w, d in zip(weights, gaps, strict=True))


def elo(sample: Sample, pairing: Pairing) -> tuple[float, float]:
    """Return the estimated Elo difference (candidate minus base) and its 95% half-width.

    The delta method on the mean scores; the variance has the prior's half deal in it, and
    the half-width is infinite until two deals are in.
    """
    n = sample.n
    if n == 0:
        return 0.0, math.inf
    dcc, dbb, dcb = sample.moments(PRIOR_DEALS)
    spread = n - 1 + PRIOR_DEALS
    if pairing is Pairing.HEAD_TO_HEAD:
        x = _clamped(sample.mean_x, n)
        slope = ELO_SCALE / (x * (1 - x))
        variance = slope * slope * max(0.0, dcc + dbb - 2 * dcb) / 4 / spread / n
        estimate = logit_elo(x)
    else:
        c, b = _clamped(sample.mean_c, n), _clamped(sample.mean_b, n)
        gc, gb = ELO_SCALE / (c * (1 - c)), -ELO_SCALE / (b * (1 - b))
        variance = max(0.0, gc * gc * dcc + gb * gb * dbb + 2 * gc * gb * dcb) / spread / n
        estimate = logit_elo(c) - logit_elo(b)
    return estimate, Z95 * math.sqrt(variance) if n > 1 else math.inf


def los(sample: Sample) -> float:
    """Return the likelihood of superiority: the chance that the candidate is the better bot
    (normal approximation of the mean pair score, the prior's half deal in its variance)."""
    if sample.n < 2:
        return 0.5
    dcc, dbb, dcb = sample.moments(PRIOR_DEALS)
    variance = max(0.0, dcc + dbb - 2 * dcb) / 4 / (sample.n - 1 + PRIOR_DEALS) / sample.n
    return 0.5 * math.erfc(-(sample.mean_x - 0.5) / math.sqrt(2 * variance))


@dataclass(frozen=True, slots=True)
class Status:
    """Where the test stands: what the progress lines and the report show."""

    deals: int
    llr: float
    lower: float
    upper: float
    elo: float
    elo_95: float
    los: float
    verdict: Verdict | None
    """None while the test goes on."""
    variance_reduction: float | None


@dataclass
class Sequential:
    """The test run deal by deal; it stops at the first deal whose LLR crosses a bound."""

    hypotheses: Hypotheses
    pairing: Pairing
    sample: Sample = field(default_factory=Sample)
    verdict: Verdict | None = None

    def add(self, c: float, b: float) -> Verdict | None:
        """Take one deal (ignored once decided); return the verdict once there is one."""
        if self.verdict is None:
            self.sample = self.sample.add(c, b)
            value = llr(self.sample, self.hypotheses, self.pairing)
            if value >= self.hypotheses.upper:
                self.verdict = Verdict.H1
            elif value <= self.hypotheses.lower:
                self.verdict = Verdict.H0
        return self.verdict

    def status(self) -> Status:
        """Return the test's state now."""
        estimate, half = elo(self.sample, self.pairing)
        return Status(self.sample.n, llr(self.sample, self.hypotheses, self.pairing),
                      self.hypotheses.lower, self.hypotheses.upper, estimate, half,
                      los(self.sample), self.verdict, self.sample.variance_reduction())
