"""The pairwise Bradley-Terry fit of placings: every pair of seats at a table is a game.

A table of k seats gives k(k-1)/2 pairwise results (1 for the better placing, 0.5 each for
an equal one), each read as P(a beats b) = 1 / (1 + exp(theta_b - theta_a)). This is the
rating most leagues publish (Elo's model, applied pair by pair). The pairs of one table are
not independent, so the plain likelihood's intervals are wrong (too wide where placings
follow Plackett-Luce: the pairwise results of one table then carry less than k(k-1)/2
games' worth of information). The intervals here are the composite likelihood's sandwich,
H^-1 J H^-1 with J summed over *tables* (each table's score is the sum of its pairs'):
right whether or not the pairs are independent.

Where placings follow Plackett-Luce, any two bots' order is exactly Bradley-Terry (Luce's
choice axiom), so this fit estimates the same strengths as `arena.tournament.plackett`, with
less precision at k > 2 (it ignores which pairs' outcomes go together). Kept as a rater for
those who want the pairwise model their other tools use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.tournament.plackett import Array, Index, Result, newton


@dataclass(frozen=True, slots=True)
class Tables:
    """The games of one table size in canonical order: (games, k) bots and placings."""

    bots: Index
    placings: Index


def tables(games: Sequence[Sequence[tuple[int, int]]]) -> list[Tables]:
    """Group games of (bot index, placing) by size, seats and games in a canonical order
    (so that the fit does not depend on the order of the games, to the last bit)."""
    by_size: dict[int, list[Sequence[tuple[int, int]]]] = {}
    for game in games:
        if len(game) >= 2:
            by_size.setdefault(len(game), []).append(sorted(game, key=lambda s: (s[1], s[0])))
    out = []
    for _, rows in sorted(by_size.items()):
        seats = np.array(rows, dtype=np.int64)
        bots, placings = seats[:, :, 0], seats[:, :, 1]
        order = np.lexsort([*(bots[:, j] for j in reversed(range(bots.shape[1]))),
                            *(placings[:, j] for j in reversed(range(bots.shape[1])))])
        out.append(Tables(bots[order], placings[order]))
    return out


def _pass(part: Tables, theta: Array, n: int,
          want: str) -> tuple[float, Array, Array | None]:
    """The composite log-likelihood, its score and ('info') the information matrix or
    ('outer') the sum over tables of each table's score outer product."""
    bots, placings = part.bots, part.placings
    k = bots.shape[1]
    t = theta[bots]
    loglik = 0.0
    score = np.zeros(bots.shape)
    info = np.zeros(n * n) if want == "info" else None
    for u in range(k):
        for v in range(u + 1, k):
            d = t[:, u] - t[:, v]
            y = np.where(placings[:, u] < placings[:, v], 1.0, 0.5)
            loglik += float((y * -np.logaddexp(0, -d) + (1 - y) * -np.logaddexp(0, d)).sum())
            r = y - 1 / (1 + np.exp(-d))
            score[:, u] += r
            score[:, v] -= r
            if info is not None:
                w = 1 / (2 + np.exp(d) + np.exp(-d))
                a, b = bots[:, u], bots[:, v]
                for rows, cols, sign in ((a, a, 1.0), (b, b, 1.0), (a, b, -1.0), (b, a, -1.0)):
                    info += np.bincount(rows * n + cols, sign * w, minlength=n * n)
    grad = np.zeros(n)
    grad += np.bincount(bots.ravel(), score.ravel(), minlength=n)
    if want == "outer":
        flat = (bots[:, :, None] * n + bots[:, None, :]).ravel()
        outer = np.zeros(n * n)
        outer += np.bincount(flat, (score[:, :, None] * score[:, None, :]).ravel(),
                             minlength=n * n)
        return loglik, grad, outer.reshape(n, n)
    return loglik, grad, None if info is None else info.reshape(n, n)


def fit(parts: Sequence[Tables], n: int, prior: float = 1.0, tolerance: float = 1e-10,
        max_iterations: int = 100) -> Result:
    """Maximise the (penalised) composite likelihood by Newton's method (it is concave);
    return centred strengths and their sandwich covariance (the prior as in `plackett`)."""
    return newton(_pass, parts, n, prior, tolerance, max_iterations)
