"""A ladder's two ratings: online beliefs for matchmaking, the batch fit for its table.

Matchmaking needs a rating after every round at no cost that grows with the ladder, so it
uses OpenSkill's Bayesian Plackett-Luce (as the tournament live view does), updated with
each round's games in key order: the beliefs are a function of the stored games alone,
however the runs were cut. Its uncertainty (sigma) is what "an uncertain bot" means.

The table uses the tournament's batch fit (`arena.tournament.plackett`: whole placings,
sandwich intervals), over all games or the most recent `window`, started from the last
snapshot's ratings so that a refit after a run's games takes a Newton step or two.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager

import numpy as np
from openskill.models import PlackettLuce
from threadpoolctl import threadpool_limits

from arena.ladder.columns import Columns
from arena.ladder.store import Belief
from arena.tournament import plackett
from arena.tournament.ratings import ELO_SCALE

ANCHOR = 1500.0
"""The mean rating of the entries fitted."""
Z95 = 1.959964
MODEL = PlackettLuce(tau=0.0)
"""No drift: a version's code, so its strength, does not change (a new version is a new
entry)."""
Seating = Sequence[tuple[str, int]]
"""One game: (entry, placing) by seat."""


def fresh(seats: int) -> Belief:
    """The belief about an entry with no game yet."""
    return Belief(MODEL.mu, MODEL.sigma, 0, (0,) * seats)


def absorb(beliefs: Mapping[str, Belief], games: Iterable[Seating],
           seats: int) -> dict[str, Belief]:
    """Return `beliefs` updated with `games`, in the order given (the key order)."""
    out = dict(beliefs)
    for game in games:
        current = [out.get(entry) or fresh(seats) for entry, _ in game]
        teams = [[MODEL.rating(mu=b.mu, sigma=b.sigma)] for b in current]
        rated = MODEL.rate(teams, ranks=[float(p) for _, p in game])
        for seat, ((entry, _), belief, team) in enumerate(zip(game, current, rated,
                                                             strict=True)):
            counts = list(belief.seats) + [0] * (seats - len(belief.seats))
            if seat < len(counts):
                counts[seat] += 1
            out[entry] = Belief(team[0].mu, team[0].sigma, belief.games + 1, tuple(counts))
    return out


def fit(games: Sequence[Seating],
        start: Mapping[str, float | None]) -> dict[str, tuple[float, float]]:
    """Fit games given as seatings: (rating, 95% half-width) by entry, Elo scale."""
    rows = [(i, entry, placing, 0, 0, 0, 0.0) for i, game in enumerate(games)
            for entry, placing in game]
    return fit_columns(Columns().extended(rows, 0), start)


def fit_columns(columns: Columns, start: Mapping[str, float | None],
                window: int | None = None) -> dict[str, tuple[float, float]]:
    """Fit the games of `columns` (the last `window` only, if given): (rating, 95%
    half-width) by entry, Elo scale, mean `ANCHOR`; from `start` (Elo, by entry; missing
    ones at the mean)."""
    if not len(columns.keys):
        return {}
    cuts = np.flatnonzero(np.diff(columns.keys)) + 1
    bounds = np.concatenate(([0], cuts, [len(columns.keys)]))
    if window:
        bounds = bounds[-window - 1:]
    sizes = np.diff(bounds)
    seen = np.unique(columns.bots[bounds[0]:])
    names = [columns.names[i] for i in seen.tolist()]
    index = np.full(len(columns.names), -1, dtype=np.int64)
    index[seen] = np.arange(len(seen))
    parts = []
    for size in sorted(set(sizes.tolist()) - {0, 1}):
        rows = bounds[:-1][sizes == size][:, None] + np.arange(size)
        parts.append(plackett.block_of(np.stack([index[columns.bots[rows]],
                                                 columns.places[rows]], axis=2)))
    theta = np.array([((start.get(e) or ANCHOR) - ANCHOR) / ELO_SCALE for e in names])
    with one_blas_thread():
        result = plackett.fit(parts, len(names), start=theta - theta.mean())
    return {e: (ANCHOR + ELO_SCALE * float(result.theta[i]),
                Z95 * ELO_SCALE * math.sqrt(max(float(result.cov[i, i]), 0.0)))
            for i, e in enumerate(names)}


def one_blas_thread() -> AbstractContextManager[object]:
    """Limit BLAS to one thread: the fit's matrices have one row per entry (small), and on
    a busy machine OpenBLAS's waiting threads made each solve ~100 times slower."""
    limit: AbstractContextManager[object] = threadpool_limits(limits=1, user_api="blas")
    return limit
