"""Standings: a pure function of the stored games and pairings.

Points by placing (ties share the points of the places they cover), game scores beside,
Buchholz (the sum of the final points of every opponent met, once per game),
Sonneborn-Berger, the online rating (live view only; games in schedule order), the batch
fit with the LOS of each row over the next, and the crosstable of pairwise results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.core.game import Json
from arena.core.rng import derive_seed
from arena.tournament.pairing import RoundPlan
from arena.tournament.ratings import (
    BATCH,
    ONLINE,
    ONLINE_RATERS,
    RATERS,
    Fit,
    OnlineRater,
    pairwise,
)
from arena.tournament.store import GameKey, StoredGame


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
    forfeit_wins: int = 0
    """Games of a Swiss round paired before an opponent withdrew, never played: scored as
    won against the withdrawn bot (see `compute`), not counted as games."""
    withdrawn: bool = False
    """Withdrawn (`--withdraw`): given no more games."""
    buchholz: float = 0.0
    sb: float = 0.0
    """Sonneborn-Berger: over every opponent met, the pairwise result (1 for a better
    placing, 0.5 for an equal one) times that opponent's final points."""
    elo: float = 1500.0
    fit_elo: float | None = None
    interval: float | None = None
    los_next: float | None = None
    """The likelihood that this bot is stronger than the next one in the table (None: the
    last row, no fit, or the two were never linked by games)."""
    faults: int = 0
    timeouts: int = 0
    forfeits: int = 0
    opponents: list[str] = field(default_factory=list)
    results: list[tuple[str, float]] = field(default_factory=list)
    """(opponent, pairwise result) for every opponent of every game."""

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
            "forfeit_wins": self.forfeit_wins, "withdrawn": self.withdrawn,
            "buchholz": round(self.buchholz, 4), "sb": round(self.sb, 4),
            "elo": round(self.elo, 1),
            "fit_elo": None if self.fit_elo is None else round(self.fit_elo, 1),
            "interval": None if self.interval is None else round(self.interval, 1),
            "los_next": None if self.los_next is None else round(self.los_next, 4),
            "win_rate": None if self.win_rate is None else round(self.win_rate, 4),
            "mean_placing": None if self.mean_placing is None else round(self.mean_placing, 4),
            "faults": self.faults, "timeouts": self.timeouts, "forfeits": self.forfeits,
        }


Crosstable = dict[str, dict[str, tuple[int, int, int]]]
"""Per bot, per opponent: (wins, draws, losses) of the pairwise results of their games (a
better placing at the same table wins, an equal one draws)."""


@dataclass(frozen=True, slots=True)
class Standings:
    """The ranked table, the crosstable, and the batch fit when it was computed."""

    rows: tuple[Row, ...]
    fit: Fit | None
    games: int
    crosstable: Crosstable = field(default_factory=dict)
    swiss: bool = False
    """Ranked as a Swiss is (points, Buchholz, Sonneborn-Berger), byes scored; else by
    points per game."""
    model: str | None = None
    """The batch rater (a name in `ratings.RATERS`) whose fit gave `fit_elo`, the
    intervals and the LOS; None where there is no fit (the live view: the online rating,
    `elo`, alone)."""

    @property
    def components(self) -> tuple[tuple[str, ...], ...]:
        """The groups of bots linked by games (one, unless the comparison graph is cut)."""
        return self.fit.components if self.fit is not None else ()

    def warnings(self) -> list[str]:
        """Lines to show beside the table: a comparison graph in several pieces."""
        if len(self.components) < 2:
            return []
        groups = "; ".join(", ".join(g) for g in self.components)
        return [f"the bots form {len(self.components)} groups that never met, directly or "
                f"through others ({groups}): ratings of different groups cannot be compared "
                "and no LOS is given across them"]

    def to_json(self) -> dict[str, Json]:
        """Return the table, crosstable and likelihood of superiority as JSON-ready data."""
        los = None if self.fit is None else {
            a: {b: round(v, 4) for b, v in sorted(row.items())}
            for a, row in sorted(self.fit.los.items())}
        cross: dict[str, Json] = {a: {b: list(v) for b, v in sorted(row.items())}
                                  for a, row in sorted(self.crosstable.items())}
        return {"games": self.games, "standings": [r.to_json() for r in self.rows],
                "los": los, "crosstable": cross,
                "components": [list(g) for g in self.components],
                "rating_models": self.rating_models()}

    def rating_models(self) -> dict[str, Json]:
        """Which rater gave each rating field of a row (`elo` is named so for older readers:
        it is the online rating; `fit_elo`, `interval` and `los_next` are the fit's)."""
        return {"elo": ONLINE, "fit_elo": self.model}


def compute(bots: Sequence[str], games: Sequence[StoredGame], rounds: Sequence[RoundPlan],
            rule: PointsRule, table_size: int, swiss_byes: bool = False,
            with_fit: bool = True, seed: int = 0, rater: str = BATCH,
            withdrawn: Mapping[str, int] | None = None) -> Standings:
    """Return the standings after `games` (and the byes of `rounds` for Swiss, and the
    forfeits of the bots `withdrawn` after the round given, each bot's last paired)."""
    rows = {bot: Row(bot) for bot in bots}
    elo = ONLINE_RATERS[ONLINE]()
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
        _add_forfeits(rows, ordered, rounds, rule, withdrawn or {})
    for bot in withdrawn or {}:
        if bot in rows:
            rows[bot].withdrawn = True
    for row in rows.values():
        row.elo = elo.rating(row.bot)
        row.buchholz = sum(rows[o].points for o in row.opponents if o in rows)
        row.sb = sum(result * rows[o].points for o, result in row.results if o in rows)
    model = rater if rater in RATERS else BATCH
    result = RATERS[model]().fit([[(s.bot, s.placing) for s in g.record.seats]
                                  for g in ordered]) if with_fit and ordered else None
    if result is not None:
        for bot, rating in result.ratings.items():
            if bot in rows:
                rows[bot].fit_elo, rows[bot].interval = rating.elo, rating.interval
    # Outside a Swiss (where a bye scores points), the games per bot can differ by one
    # (byes forced by the table size; a gauntlet's challengers): rank by points per game
    ranked = sorted(rows.values(), key=lambda r: _rank_key(r, seed, per_game=not swiss_byes))
    for rank, row in enumerate(ranked, start=1):
        row.rank = rank
    if result is not None:
        for row, below in zip(ranked, ranked[1:], strict=False):
            row.los_next = result.los.get(row.bot, {}).get(below.bot)
    return Standings(tuple(ranked), result, len(ordered), crosstable(ordered),
                     swiss=swiss_byes, model=model if result is not None else None)


def _add_forfeits(rows: dict[str, Row], games: Sequence[StoredGame],
                  rounds: Sequence[RoundPlan], rule: PointsRule,
                  withdrawn: Mapping[str, int]) -> None:
    """Score the games a Swiss paired before a bot withdrew that were never played, as an
    arbiter scores an unplayed paired game: a forfeit win for those who came. At a table of
    k the withdrawn bots take the last places and the others share the places above (at
    two seats: a win). In a round-robin or gauntlet an unplayed game just does not count:
    they rank by points per game."""
    played = {g.key for g in games}
    for plan in rounds:
        for table in plan.tables:
            gone = {b for b in table.bots if withdrawn.get(b, -1) >= plan.round}
            if not gone:
                continue
            for repeat, seating in enumerate(table.seatings):
                if GameKey(plan.round, table.index, repeat) in played:
                    continue
                came = [b for b in seating if b not in gone and b in rows]
                share = sum(rule.place(p, len(seating)) for p in range(1, len(came) + 1))
                for bot in came:
                    rows[bot].points += share / len(came)
                    rows[bot].forfeit_wins += 1


def crosstable(games: Sequence[StoredGame]) -> Crosstable:
    """Return the pairwise (wins, draws, losses) of every bot against every opponent."""
    tally: dict[str, dict[str, list[int]]] = {}
    for stored in games:
        for a, b, score in pairwise([(s.bot, s.placing) for s in stored.record.seats]):
            for me, other, mine in ((a, b, score), (b, a, 1 - score)):
                cell = tally.setdefault(me, {}).setdefault(other, [0, 0, 0])
                cell[0 if mine == 1 else 1 if mine == 0.5 else 2] += 1
    return {a: {b: (v[0], v[1], v[2]) for b, v in row.items()} for a, row in tally.items()}


def _add_game(rows: dict[str, Row], stored: StoredGame, rule: PointsRule,
              elo: OnlineRater) -> None:
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
        row.forfeits += 1 if seat.forfeit is not None else 0
        row.opponents.extend(s.bot for s in seats if s.bot != seat.bot)
        row.results.extend((s.bot, 1.0 if seat.placing < s.placing else
                            0.5 if seat.placing == s.placing else 0.0)
                           for s in seats if s is not seat)
    elo.update([(s.bot, s.placing) for s in seats])


def _rank_key(row: Row, seed: int,
              per_game: bool = False) -> tuple[float, float, float, float, float, int]:
    # Order-independent tie-breaks only (never the online rating, which depends on the
    # order of games): Buchholz, Sonneborn-Berger, the batch fit where computed, and last
    # a seeded coin, so equal rows order the same way on every run
    fitted = row.fit_elo if row.fit_elo is not None else 0.0
    first = row.points / row.games if per_game and row.games else 0.0
    return (-first, -row.points, -row.buchholz, -row.sb, -fitted,
            derive_seed(seed, "rank", row.bot))


def ranking(standings: Standings) -> list[str]:
    """Return bot names best first (what a Swiss round is paired from)."""
    return [row.bot for row in standings.rows]
