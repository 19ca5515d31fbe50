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
from dataclasses import dataclass

import numpy as np
from openskill.models import PlackettLuce

from arena.ladder.store import Belief, EntryStats, SeatRow
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


@dataclass
class _Tally:
    games: int = 0
    wins: float = 0.0
    placings: int = 0
    faults: int = 0
    timeouts: int = 0
    forfeits: int = 0
    last: float | None = None


def table(games: Sequence[Sequence[SeatRow]], window: int | None,
          start: Mapping[str, float | None]) -> tuple[list[EntryStats], int]:
    """Return every entry's standings line and how many games the ratings cover.

    Counts cover all games; ratings the last `window` (None: all), fitted from the ratings
    `start` (Elo scale, by entry; missing ones start at the mean).
    """
    tallies: dict[str, _Tally] = {}
    for game in games:
        winners = sum(1 for seat in game if seat[1] == 1)
        for entry, placing, faults, timeouts, forfeit, finished in game:
            tally = tallies.setdefault(entry, _Tally())
            tally.games += 1
            tally.wins += 1 / winners if placing == 1 else 0.0
            tally.placings += placing
            tally.faults += faults
            tally.timeouts += timeouts
            tally.forfeits += forfeit
            tally.last = finished if tally.last is None else max(tally.last, finished)
    recent = games[-window:] if window else games
    ratings = fit([[(s[0], s[1]) for s in game] for game in recent], start)
    out = []
    for entry, t in sorted(tallies.items()):
        value, interval = ratings.get(entry, (None, None))
        out.append(EntryStats(entry, value, interval, t.games, t.wins, t.placings, t.faults,
                              t.timeouts, t.forfeits, t.last))
    return out, len(recent)


def fit(games: Sequence[Seating],
        start: Mapping[str, float | None]) -> dict[str, tuple[float, float]]:
    """Fit the games by Plackett-Luce: (rating, 95% half-width) by entry, Elo scale."""
    entries = sorted({entry for game in games for entry, _ in game})
    if not entries:
        return {}
    index = {e: i for i, e in enumerate(entries)}
    theta = np.array([((start.get(e) or ANCHOR) - ANCHOR) / ELO_SCALE for e in entries])
    parts = plackett.blocks([[(index[e], p) for e, p in game] for game in games])
    result = plackett.fit(parts, len(entries), start=theta - theta.mean())
    return {e: (ANCHOR + ELO_SCALE * float(result.theta[i]),
                Z95 * ELO_SCALE * math.sqrt(max(float(result.cov[i, i]), 0.0)))
            for i, e in enumerate(entries)}


def elo_of(belief: Belief, seats: int) -> float:
    """An online belief on the Elo scale (as `arena.tournament.ratings.OnlineRating`)."""
    return ANCHOR + ELO_SCALE * (belief.mu - MODEL.mu) / (math.sqrt(seats) * MODEL.beta)
