"""Ratings from placings: online multiplayer Elo and a batch Bradley-Terry fit with intervals.

A game with k seats counts as the k(k-1)/2 pairwise results its placings imply (a better
placing beats a worse one, equal placings draw), each weighted 1/(k-1) so that one game
moves a bot by at most one game's worth. This is the usual approximation for multiplayer
Elo (as cutechess and others warn, pairwise results of one table are not independent, so
intervals are somewhat optimistic). No numpy: the fit aggregates games into a win matrix
and runs Hunter's MM iteration, which is fast at tournament sizes.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ELO_SCALE = 400 / math.log(10)
"""Elo points per natural-log unit of Bradley-Terry strength."""

Placings = Sequence[tuple[str, int]]
"""One game: (bot, placing) per seat; placing 1 is first, equal placings are ties."""

FULL_COVARIANCE_LIMIT = 150
"""Above this many bots, intervals use the diagonal of the information matrix only."""


def pairwise(game: Placings) -> list[tuple[str, str, float]]:
    """Return the pairwise results of one game as (a, b, a's score: 1, 0.5 or 0)."""
    out = []
    for (a, pa), (b, pb) in itertools.combinations(game, 2):
        out.append((a, b, 1.0 if pa < pb else 0.5 if pa == pb else 0.0))
    return out


def expected(rating: float, other: float) -> float:
    """Return the expected score of `rating` against `other` (logistic, 400-point scale)."""
    return 1 / (1 + 10 ** ((other - rating) / 400))


class OnlineElo:
    """Elo updated game by game; K is divided by (table size - 1)."""

    def __init__(self, k: float = 32, initial: float = 1500) -> None:
        self.k = k
        self.initial = initial
        self.ratings: dict[str, float] = {}

    def rating(self, bot: str) -> float:
        """Return the current rating of `bot` (the initial rating if it has not played)."""
        return self.ratings.get(bot, self.initial)

    def update(self, game: Placings) -> None:
        """Apply one game's result to every seat at once."""
        if len(game) < 2:
            return
        delta: dict[str, float] = defaultdict(float)
        before = {bot: self.rating(bot) for bot, _ in game}
        for a, b, score in pairwise(game):
            change = score - expected(before[a], before[b])
            delta[a] += change
            delta[b] -= change
        step = self.k / (len(game) - 1)
        for bot, value in delta.items():
            self.ratings[bot] = before[bot] + step * value


@dataclass(frozen=True, slots=True)
class Rating:
    """A fitted rating with its standard error and 95% interval half-width (Elo points)."""

    bot: str
    elo: float
    se: float
    interval: float


@dataclass(frozen=True, slots=True)
class Fit:
    """The batch fit: ratings, and the likelihood of superiority of each bot over each."""

    ratings: dict[str, Rating]
    los: dict[str, dict[str, float]]
    iterations: int


class WinMatrix:
    """Pairwise results kept as exact integers (half-points per table size), so that the
    fit cannot depend on the order in which games were added."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, int], int] = {}
        """Half-points of a against b in games of k seats, keyed (a, b, k)."""
        self.bots: set[str] = set()

    def add(self, game: Placings) -> None:
        """Add one game's pairwise results."""
        k = len(game)
        counts = self.counts
        for i, (a, pa) in enumerate(game):
            self.bots.add(a)
            for b, pb in game[i + 1:]:
                half = 2 if pa < pb else 1 if pa == pb else 0
                counts[(a, b, k)] = counts.get((a, b, k), 0) + half
                counts[(b, a, k)] = counts.get((b, a, k), 0) + 2 - half

    def wins(self) -> dict[tuple[str, str], float]:
        """Return the weighted wins of a over b, each pair of a k-seat game weighing 1/(k-1)."""
        out: dict[tuple[str, str], float] = {}
        for (a, b, k), half in sorted(self.counts.items()):
            out[(a, b)] = out.get((a, b), 0.0) + half / (2 * (k - 1))
        return out


def fit(games: Iterable[Placings], anchor: float = 1500, prior: float = 1.0,
        tolerance: float = 1e-10, max_iterations: int = 20000) -> Fit:
    """Fit Bradley-Terry strengths by maximum likelihood; mean rating = `anchor`.

    `prior` adds that many virtual draws between each bot and an average opponent, which
    keeps an unbeaten or winless bot finite; 0 gives the plain maximum likelihood.
    """
    matrix = WinMatrix()
    for game in games:
        matrix.add(game)
    return fit_matrix(matrix, anchor, prior, tolerance, max_iterations)


def fit_matrix(matrix: WinMatrix, anchor: float = 1500, prior: float = 1.0,
               tolerance: float = 1e-10, max_iterations: int = 20000) -> Fit:
    """Fit a `WinMatrix` (see `fit`)."""
    bots = sorted(matrix.bots)
    index = {b: i for i, b in enumerate(bots)}
    n = len(bots)
    won = [0.0] * n
    played: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    wins = matrix.wins()
    for (a, _), w in wins.items():
        won[index[a]] += w
    for (i, j), count in sorted(_games_between(wins, index).items()):
        played[i].append((j, count))
    if n <= FULL_COVARIANCE_LIMIT:
        theta, iterations = _newton(won, played, prior, tolerance)
    else:
        theta, iterations = _mm(won, played, prior, tolerance, max_iterations)
    mean = sum(theta) / n if n else 0.0
    theta = [t - mean for t in theta]
    cov = _covariance(theta, played, prior)
    ratings = {}
    for i, bot in enumerate(bots):
        se = ELO_SCALE * math.sqrt(max(cov[i][i], 0.0))
        ratings[bot] = Rating(bot, anchor + ELO_SCALE * theta[i], se, 1.959964 * se)
    los = {a: {b: _los(theta, cov, i, j) for j, b in enumerate(bots) if j != i}
           for i, a in enumerate(bots)}
    return Fit(ratings, los, iterations)


def _games_between(wins: dict[tuple[str, str], float],
                   index: dict[str, int]) -> dict[tuple[int, int], float]:
    out: dict[tuple[int, int], float] = {}
    for (a, b), w in wins.items():
        i, j = index[a], index[b]
        out[(i, j)] = out.get((i, j), 0.0) + w
        out[(j, i)] = out.get((j, i), 0.0) + w
    return out


def _mm(won: list[float], played: list[list[tuple[int, float]]], prior: float,
        tolerance: float, max_iterations: int) -> tuple[list[float], int]:
    """Hunter's MM iteration on gamma = exp(theta); the virtual opponent has gamma 1."""
    n = len(won)
    gamma = [1.0] * n
    for iteration in range(1, max_iterations + 1):
        new = []
        for i in range(n):
            denominator = sum(c / (gamma[i] + gamma[j]) for j, c in played[i])
            denominator += prior / (gamma[i] + 1.0)
            numerator = won[i] + prior / 2
            new.append(numerator / denominator if denominator > 0 and numerator > 0
                       else gamma[i] * 1e-3 if denominator > 0 else gamma[i])
        if prior == 0:
            scale = math.exp(-sum(math.log(g) for g in new) / n)
            new = [g * scale for g in new]
        change = max(abs(math.log(a / b)) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < tolerance:
            return [math.log(g) for g in gamma], iteration
    return [math.log(g) for g in gamma], max_iterations


def _newton(won: list[float], played: list[list[tuple[int, float]]], prior: float,
            tolerance: float, max_iterations: int = 200) -> tuple[list[float], int]:
    """Newton's method on the (concave) log-likelihood in theta, steps capped at 1."""
    n = len(won)
    theta = [0.0] * n
    for iteration in range(1, max_iterations + 1):
        grad = []
        for i in range(n):
            g = won[i] + prior / 2 - sum(c / (1 + math.exp(theta[j] - theta[i]))
                                         for j, c in played[i])
            grad.append(g - prior / (1 + math.exp(-theta[i])))
        info = _information(theta, played, prior)
        if not prior:
            info = [[v + 1 / n for v in row] for row in info]
        step = _solve(info, grad)
        largest = max((abs(x) for x in step), default=0.0)
        if largest > 1:
            step = [x / largest for x in step]
        theta = [t + x for t, x in zip(theta, step, strict=True)]
        if largest < tolerance:
            return theta, iteration
    return theta, max_iterations


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve matrix @ x = vector by Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [row[:] + [v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        value = a[col][col] or 1e-12
        pivot_row = a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / value
            if factor:
                row = a[r]
                for c in range(col, n + 1):
                    row[c] -= factor * pivot_row[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        total = a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))
        x[r] = total / (a[r][r] or 1e-12)
    return x


def _information(theta: list[float], played: list[list[tuple[int, float]]],
                 prior: float) -> list[list[float]]:
    """Return the observed information matrix (minus the Hessian) at theta."""
    n = len(theta)
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j, count in played[i]:
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            info[i][i] += count * p * (1 - p)
            info[i][j] -= count * p * (1 - p)
        if prior:
            p = 1 / (1 + math.exp(-theta[i]))
            info[i][i] += prior * p * (1 - p)
    return info


def _covariance(theta: list[float], played: list[list[tuple[int, float]]],
                prior: float) -> list[list[float]]:
    """Return the covariance of the centred strengths from the observed information."""
    n = len(theta)
    info = _information(theta, played, prior)
    if n > FULL_COVARIANCE_LIMIT:
        return [[1 / info[i][i] if i == j and info[i][i] > 0 else 0.0 for j in range(n)]
                for i in range(n)]
    if not prior:
        info = [[v + 1 / n for v in row] for row in info]
    sigma = _invert(info)
    return _centre(sigma)


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inversion with partial pivoting; a singular matrix gives huge entries."""
    n = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        value = a[col][col] or 1e-12
        a[col] = [v / value for v in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col]
                row = a[col]
                a[r] = [v - factor * w for v, w in zip(a[r], row, strict=True)]
    return [row[n:] for row in a]


def _centre(sigma: list[list[float]]) -> list[list[float]]:
    n = len(sigma)
    row_mean = [sum(r) / n for r in sigma]
    col_mean = [sum(sigma[i][j] for i in range(n)) / n for j in range(n)]
    total = sum(row_mean) / n
    return [[sigma[i][j] - row_mean[i] - col_mean[j] + total for j in range(n)]
            for i in range(n)]


def _los(theta: Sequence[float], cov: Sequence[Sequence[float]], i: int, j: int) -> float:
    variance = cov[i][i] + cov[j][j] - 2 * cov[i][j]
    diff = theta[i] - theta[j]
    if variance <= 0:
        return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
    return 0.5 * (1 + math.erf(diff / math.sqrt(2 * variance)))
