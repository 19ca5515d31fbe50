"""Standings: a pure function of the stored games and pairings.

Points by placing (ties share the points of the places they cover), game scores beside,
Buchholz (the sum of the final points of every opponent met, once per game), online Elo
(games taken in schedule order, so completion order never matters) and the batch fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.core.game import Json
from arena.core.rng import derive_seed
from arena.tournament.pairing import RoundPlan
from arena.tournament.ratings import Fit, OnlineElo, fit
from arena.tournament.store import StoredGame


@dataclass(frozen=True, slots=True)
class PointsRule:
    """Points per placing (index 0 = first; missing places score 0) and for a bye."""

    by_placing: tuple[float, ...] | None = None
    bye: float | None = None

    def place(self, position: int, seats: int) -> float:
        """Return the points of finishing at 1-based `position` of `seats` (no ties)."""
        if self.by_placing is None:
            return float(seats - position)
        return self.by_placing[position - 1] if position <= len(self.by_placing) else 0.0

    def game(self, placings: Sequence[int]) -> list[float]:
        """Return each seat's points; tied seats share the places they cover."""
        seats = len(placings)
        out = []
        for placing in placings:
            tied = sum(1 for p in placings if p == placing)
            covered = range(placing, placing + tied)
            out.append(sum(self.place(p, seats) for p in covered) / tied)
        return out

    def bye_points(self, seats: int) -> float:
        """Return a bye's points: as configured, else a seat's mean points at a full table."""
        if self.bye is not None:
            return self.bye
        return sum(self.place(p, seats) for p in range(1, seats + 1)) / seats


@dataclass
class Row:
    """One bot's line in the table."""

    bot: str
    rank: int = 0
    games: int = 0
    points: float = 0.0
    score: int = 0
    wins: float = 0.0
    placing_sum: int = 0
    byes: int = 0
    buchholz: float = 0.0
    elo: float = 1500.0
    fit_elo: float | None = None
    interval: float | None = None
    faults: int = 0
    timeouts: int = 0
    crashes: int = 0
    opponents: list[str] = field(default_factory=list)

    @property
    def mean_placing(self) -> float | None:
        """The mean placing over the games played."""
        return self.placing_sum / self.games if self.games else None

    @property
    def win_rate(self) -> float | None:
        """Wins (shared wins count as a fraction) per game."""
        return self.wins / self.games if self.games else None

    def to_json(self) -> dict[str, Json]:
        """Return the row as JSON-ready data."""
        return {
            "rank": self.rank, "bot": self.bot, "games": self.games,
            "points": round(self.points, 4), "score": self.score, "byes": self.byes,
            "buchholz": round(self.buchholz, 4), "elo": round(self.elo, 1),
            "fit_elo": None if self.fit_elo is None else round(self.fit_elo, 1),
            "interval": None if self.interval is None else round(self.interval, 1),
            "win_rate": None if self.win_rate is None else round(self.win_rate, 4),
            "mean_placing": None if self.mean_placing is None else round(self.mean_placing, 4),
            "faults": self.faults, "timeouts": self.timeouts, "crashes": self.crashes,
        }


@dataclass(frozen=True, slots=True)
class Standings:
    """The ranked table, and the batch fit when it was computed."""

    rows: tuple[Row, ...]
    fit: Fit | None
    games: int

    def to_json(self) -> dict[str, Json]:
        """Return the table (and likelihood of superiority) as JSON-ready data."""
        los = None if self.fit is None else {
            a: {b: round(v, 4) for b, v in sorted(row.items())}
            for a, row in sorted(self.fit.los.items())}
        return {"games": self.games, "standings": [r.to_json() for r in self.rows],
                "los": los}


def compute(bots: Sequence[str], games: Sequence[StoredGame], rounds: Sequence[RoundPlan],
            rule: PointsRule, table_size: int, swiss_byes: bool = False,
            with_fit: bool = True, seed: int = 0) -> Standings:
    """Return the standings after `games` (and the byes of `rounds` for Swiss)."""
    rows = {bot: Row(bot) for bot in bots}
    elo = OnlineElo()
    ordered = sorted(games, key=lambda g: (g.key.round, g.key.table, g.key.repeat))
    for stored in ordered:
        _add_game(rows, stored, rule, elo)
    played_rounds = {g.key.round for g in ordered}
    if swiss_byes:
        for plan in rounds:
            if plan.round in played_rounds:
                for bot in plan.byes:
                    rows[bot].byes += 1
                    rows[bot].points += rule.bye_points(table_size)
    for row in rows.values():
        row.elo = elo.rating(row.bot)
        row.buchholz = sum(rows[o].points for o in row.opponents if o in rows)
    result = fit([[(s.bot, s.placing) for s in g.record.seats] for g in ordered]) \
        if with_fit and ordered else None
    if result is not None:
        for bot, rating in result.ratings.items():
            if bot in rows:
                rows[bot].fit_elo, rows[bot].interval = rating.elo, rating.interval
    ranked = sorted(rows.values(), key=lambda r: _rank_key(r, seed))
    for rank, row in enumerate(ranked, start=1):
        row.rank = rank
    return Standings(tuple(ranked), result, len(ordered))


def _add_game(rows: dict[str, Row], stored: StoredGame, rule: PointsRule,
              elo: OnlineElo) -> None:
    seats = stored.record.seats
    points = rule.game([s.placing for s in seats])
    winners = sum(1 for s in seats if s.placing == 1)
    for seat, pts in zip(seats, points, strict=True):
        row = rows.setdefault(seat.bot, Row(seat.bot))
        row.games += 1
        row.points += pts
        row.score += seat.score
        row.placing_sum += seat.placing
        row.wins += 1 / winners if seat.placing == 1 else 0.0
        row.faults += seat.faults
        row.timeouts += seat.timeouts
        row.crashes += 1 if seat.forfeit is not None else 0
        row.opponents.extend(s.bot for s in seats if s.bot != seat.bot)
    elo.update([(s.bot, s.placing) for s in seats])


def _rank_key(row: Row, seed: int) -> tuple[float, float, float, int]:
    # the last key is a seeded coin, so equal rows order the same way on every run
    return (-row.points, -row.buchholz, -row.elo, derive_seed(seed, "rank", row.bot))


def ranking(standings: Standings) -> list[str]:
    """Return bot names best first (what a Swiss round is paired from)."""
    return [row.bot for row in standings.rows]
