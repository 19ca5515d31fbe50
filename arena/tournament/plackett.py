"""The Plackett-Luce fit of placings: ratings with sandwich intervals, in numpy.

A game of k seats is read as the bots being chosen one by one, best placing first, each
from those not yet chosen with probability proportional to exp(theta). Bots tied on a
placing are chosen from the same remaining set (Breslow's rule for ties); a tie for last
counts as one choice fewer than it has bots, so that a two-bot draw is half a win for each
(as in Bradley-Terry, which Plackett-Luce is at k = 2).

The likelihood is concave, so Newton's method (with step halving) finds the maximum; each
iteration is a few array passes over the games and one n x n solve. The intervals use the
sandwich H^-1 J H^-1 (H the information, J the sum over games of the outer products of
each game's score), which stays right when placings do not follow the model exactly.

Every sum is taken over the games in one canonical order, so the fit does not depend on
the order in which games were given, to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]
Index = npt.NDArray[np.int64]
CHUNK = 100_000
"""Games per array pass (bounds the memory of the k x k blocks)."""


@dataclass(frozen=True, slots=True)
class Block:
    """The games of one table size: seat indices ordered by placing, the weight of each
    seat's choice and the mass of the choice made at each position."""

    bots: Index
    choose: Array
    mass: Array


@dataclass(frozen=True, slots=True)
class Result:
    """Strengths (natural-log units, mean 0), their covariance, and the iterations."""

    theta: Array
    cov: Array
    iterations: int


def blocks(games: Sequence[Sequence[tuple[int, int]]]) -> list[Block]:
    """Arrange games of (bot index, placing) per seat into canonical blocks, one per size."""
    by_size: dict[int, list[Sequence[tuple[int, int]]]] = {}
    for game in games:
        if len(game) >= 2:
            by_size.setdefault(len(game), []).append(game)
    return [_block(np.array(rows, dtype=np.int64)) for _, rows in sorted(by_size.items())]


def block_of(seats: Index) -> Block:
    """One table size's games, a (games, k, 2) array of (bot index, placing), as a canonical
    block: `blocks` for a caller that holds arrays already (a ladder reads its 100k games'
    seats from SQL straight into one)."""
    return _block(seats)


def _block(seats: Index) -> Block:
    """One size's games, (games, k, 2) of (bot, placing): seats ordered by placing then
    bot; games without ties in arrays at once, the others one by one; rows sorted."""
    bots, placings = seats[:, :, 0], seats[:, :, 1]
    order = np.argsort(placings * (int(bots.max(initial=0)) + 1) + bots, axis=1)
    bots = np.take_along_axis(bots, order, axis=1)
    placings = np.take_along_axis(placings, order, axis=1)
    k = bots.shape[1]
    choose = np.ones(bots.shape)
    choose[:, -1] = 0.0
    mass = choose.copy()
    tied = np.nonzero((np.diff(placings, axis=1) == 0).any(axis=1))[0]
    for row in tied:
        _, choose[row], mass[row] = _stages(list(zip(bots[row].tolist(),
                                                     placings[row].tolist(), strict=True)))
    keys = [*(choose[:, j] for j in reversed(range(k))),
            *(mass[:, j] for j in reversed(range(k))),
            *(bots[:, j] for j in reversed(range(k)))]
    rows = np.lexsort(keys)
    return Block(bots[rows], choose[rows], mass[rows])


def _stages(game: Sequence[tuple[int, int]]) -> tuple[list[int], list[float], list[float]]:
    ordered = sorted(game, key=lambda seat: (seat[1], seat[0]))
    k = len(ordered)
    choose = [0.0] * k
    mass = [0.0] * k
    start = 0
    while start < k:
        end = start
        while end < k and ordered[end][1] == ordered[start][1]:
            end += 1
        size = end - start
        if end < k:
            weight, total = 1.0, float(size)
        else:  # the last group: one choice fewer than it has bots
            weight, total = (size - 1) / size, float(size - 1)
        for i in range(start, end):
            choose[i] = weight
        mass[start] = total
        start = end
    return [bot for bot, _ in ordered], choose, mass


def _pass(block: Block, theta: Array, n: int,
          want: str) -> tuple[float, Array, Array | None]:
    """One pass over a block: the log-likelihood, the score and (want 'info' or 'outer')
    the information matrix or the sum of the games' score outer products."""
    loglik = 0.0
    grad = np.zeros(n)
    matrix = np.zeros(n * n) if want else None
    k = block.bots.shape[1]
    low = np.minimum.outer(np.arange(k), np.arange(k))
    for at in range(0, len(block.bots), CHUNK):
        bots = block.bots[at:at + CHUNK]
        choose, mass = block.choose[at:at + CHUNK], block.mass[at:at + CHUNK]
        t = theta[bots]
        top = t.max(axis=1, keepdims=True)
        w = np.exp(t - top)
        remaining = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]
        loglik += float((choose * t).sum() - (mass * (np.log(remaining) + top)).sum())
        share = np.cumsum(mass / remaining, axis=1)
        score = choose - w * share
        grad += np.bincount(bots.ravel(), score.ravel(), minlength=n)
        if matrix is None:
            continue
        flat = (bots[:, :, None] * n + bots[:, None, :]).ravel()
        if want == "info":
            second = np.cumsum(mass / remaining ** 2, axis=1)
            block_k = -w[:, :, None] * w[:, None, :] * second[:, low]
            block_k[:, np.arange(k), np.arange(k)] += w * share
        else:
            block_k = score[:, :, None] * score[:, None, :]
        matrix += np.bincount(flat, block_k.ravel(), minlength=n * n)
    return loglik, grad, None if matrix is None else matrix.reshape(n, n)


Part = TypeVar("Part")
Pass = Callable[[Part, Array, int, str], tuple[float, Array, Array | None]]
"""One part's pass (see `_pass`): the log-likelihood, the score and, for `want` 'info' or
'outer', the information matrix or the sum of its games' score outer products. A model
with another likelihood (`arena.tournament.bradley_terry`) brings its own pass and shares
the prior, Newton's method and the sandwich below."""


def total(one: Pass[Part], parts: Sequence[Part], theta: Array, n: int, prior: float,
          want: str) -> tuple[float, Array, Array | None]:
    """Sum `one` over the parts, and add the prior."""
    loglik, grad = 0.0, np.zeros(n)
    matrix = np.zeros((n, n)) if want else None
    for part in parts:
        ll, g, m = one(part, theta, n, want)
        loglik, grad = loglik + ll, grad + g
        if matrix is not None and m is not None:
            matrix += m
    if prior:  # `prior` virtual draws of each bot against a bot of strength 0
        p = 1 / (1 + np.exp(-theta))
        loglik += float(prior * (theta / 2 - np.logaddexp(0, theta)).sum())
        grad += prior * (0.5 - p)
        if matrix is not None and want == "info":
            matrix[np.diag_indices(n)] += prior * p * (1 - p)
    return loglik, grad, matrix


def fit(parts: Sequence[Block], n: int, prior: float = 1.0, tolerance: float = 1e-10,
        max_iterations: int = 100, start: Array | None = None) -> Result:
    """Maximise the (penalised) likelihood by Newton's method; return centred strengths
    and their sandwich covariance.

    `start` (the strengths of an earlier fit, e.g. before a ladder's latest games) only
    saves iterations: the likelihood is concave, so the maximum found is the same (to
    `tolerance`; not to the last bit, as a fit from zero is).
    """
    return newton(_pass, parts, n, prior, tolerance, max_iterations, start)


def newton(one: Pass[Part], parts: Sequence[Part], n: int, prior: float, tolerance: float,
           max_iterations: int, start: Array | None = None) -> Result:
    """Maximise a concave (penalised) likelihood given by its pass, with step halving."""
    theta = np.zeros(n) if start is None else np.array(start, dtype=np.float64)
    iterations = 0
    pin = np.full((n, n), 1 / n) if not prior else 0.0  # fixes the free constant
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - reported
        loglik, grad, info = total(one, parts, theta, n, prior, "info")
        assert info is not None
        step = np.linalg.solve(info + pin, grad)
        scale = 1.0
        while scale > 1e-6:
            trial = theta + scale * step
            if not prior:
                trial -= trial.mean()
            if total(one, parts, trial, n, prior, "")[0] >= loglik - 1e-12 * abs(loglik):
                break
            scale /= 2
        theta = trial
        if float(np.abs(scale * step).max(initial=0.0)) < tolerance:
            break
    theta = theta - theta.mean()
    return Result(theta, covariance(one, parts, theta, n, prior), iterations)


def covariance(one: Pass[Part], parts: Sequence[Part], theta: Array, n: int,
               prior: float) -> Array:
    """The sandwich covariance of the centred strengths."""
    _, _, info = total(one, parts, theta, n, prior, "info")
    _, _, outer = total(one, parts, theta, n, prior, "outer")
    assert info is not None and outer is not None
    if not prior:
        info = info + 1 / n
    bread = np.linalg.pinv(info)
    sandwich = bread @ outer @ bread
    centre = np.eye(n) - 1 / n
    out: Array = centre @ sandwich @ centre
    return out


def los(theta: Array, cov: Array, i: int, j: int) -> float:
    """The likelihood that bot i is stronger than bot j."""
    variance = float(cov[i, i] + cov[j, j] - 2 * cov[i, j])
    diff = float(theta[i] - theta[j])
    if variance <= 0:
        return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
    return 0.5 * (1 + math.erf(diff / math.sqrt(2 * variance)))
