"""The settings a run stores with its results: one typed record, the only road to standings.

The runner writes it into the database (meta key `settings`) when a run starts and when a
bot withdraws or enters; `arena standings`, `arena verify` and the runner itself compute
the table through `Settings.standings`, so there is one way to rank a tournament. Reading
is tolerant: a run stored by an older arena (missing keys, or none at all) still gives
its standings, from the bots found in its games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.core.game import Json
from arena.tournament.config import Format, TournamentConfig
from arena.tournament.pairing import RoundPlan
from arena.tournament.ratings import BATCH
from arena.tournament.standings import PointsRule, Standings, compute
from arena.tournament.store import StoredGame

RULES = 5
"""The version of the tournament rules: how rounds are paired and standings computed. A run
begun under other rules cannot be continued by this arena when its pairings differ (a
Swiss would change rules midway), and `arena verify` does not hold its results.json to
today's standings. 2: issue 11 (k-seat Swiss that avoids repeats first, forfeit wins).
3: a k-seat Swiss on a field with a resolvable design is anchored to it from round 2
(`arena.tournament.anchor`), so its later rounds pair otherwise than under 2.
4: fields beyond the anchor's search (the Kirkman system of 63, and up to 300 bots) are
anchored too, by the placing round 1 fixes (`anchor.fixed_round`).
5: 28 and 40 bots at tables of 4 play a resolvable design (`arena.tournament.quadruples`):
their round-robin and Swiss pair otherwise than under 4."""


@dataclass(frozen=True, slots=True)
class Change:
    """A bot that withdrew from, or entered, a run: after which round (0: before any)."""

    bot: str
    after_round: int

    def to_json(self) -> dict[str, Json]:
        return {"bot": self.bot, "after_round": self.after_round}


@dataclass(frozen=True, slots=True)
class Settings:
    """What `arena standings` needs to rebuild the table from the database alone."""

    name: str = ""
    game: str = ""
    format: str = Format.ROUND_ROBIN.value
    bots: tuple[str, ...] = ()
    points: tuple[float, ...] | None = None
    bye_points: float | None = None
    table_size: int = 2
    seed: int = 0
    rounds: int | None = None
    withdrawn: tuple[Change, ...] = ()
    entered: tuple[Change, ...] = ()
    rating: str = BATCH
    """The batch rater of the final table (a name in `ratings.RATERS`)."""
    rules: int = RULES
    """The tournament rules (pairing and standings) the run was begun under: 1 for a run
    stored before they were numbered."""
    extra: Mapping[str, Json] = field(default_factory=dict)
    """Keys another kind of run stores beside these (kept as they are)."""

    @classmethod
    def of(cls, config: TournamentConfig) -> Settings:
        """Return the settings of a tournament file."""
        # a gauntlet's challengers: which bots played the field, for a reader of the run
        extra: dict[str, Json] = {"challengers": list(config.challengers)} \
            if config.format is Format.GAUNTLET else {}
        return cls(config.name, config.game, config.format.value,
                   tuple(b.name for b in config.bots), config.points, config.bye_points,
                   config.table.size, config.seed,
                   config.rounds if config.format is not Format.GAUNTLET else None,
                   rating=config.rating, extra=extra)

    @classmethod
    def from_json(cls, data: Mapping[str, Any],
                  games: Sequence[StoredGame] = ()) -> Settings:
        """Read stored settings; missing or malformed values fall back to what the games
        show (the bots) or to the defaults."""
        bots = data.get("bots")
        names = tuple(str(b) for b in bots) if isinstance(bots, list) and bots else tuple(
            sorted({s.bot for g in games for s in g.record.seats}))
        points = data.get("points")
        known = {f for f in cls.__dataclass_fields__}
        return cls(
            name=str(data.get("name", "")), game=str(data.get("game", "")),
            format=str(data.get("format", Format.ROUND_ROBIN.value)), bots=names,
            points=tuple(float(p) for p in points) if isinstance(points, list) and points
            else None,
            bye_points=_number(data.get("bye_points")),
            table_size=int(_number(data.get("table_size")) or 2),
            seed=int(_number(data.get("seed")) or 0),
            rounds=None if _number(data.get("rounds")) is None
            else int(_number(data.get("rounds")) or 0),
            withdrawn=_changes(data.get("withdrawn")), entered=_changes(data.get("entered")),
            rating=str(data.get("rating") or BATCH),
            rules=int(_number(data.get("rules")) or 1),
            extra={k: v for k, v in data.items() if k not in known})

    def to_json(self) -> dict[str, Json]:
        """Return the settings as stored (the keys of older runs, plus any changes)."""
        out: dict[str, Json] = {
            **self.extra, "name": self.name, "game": self.game, "format": self.format,
            "bots": list(self.bots), "points": list(self.points) if self.points else None,
            "bye_points": self.bye_points, "table_size": self.table_size, "seed": self.seed,
            "rounds": self.rounds, "rating": self.rating, "rules": self.rules}
        if self.withdrawn:
            out["withdrawn"] = [c.to_json() for c in self.withdrawn]
        if self.entered:
            out["entered"] = [c.to_json() for c in self.entered]
        return out

    @property
    def rule(self) -> PointsRule:
        """The points rule."""
        return PointsRule(self.points, self.bye_points)

    def active(self, number: int) -> list[str]:
        """The bots that may be paired in round `number`: not withdrawn before it, and not
        entering after it."""
        gone = {c.bot for c in self.withdrawn if c.after_round < number}
        gone |= {c.bot for c in self.entered if c.after_round >= number}
        return [b for b in self.bots if b not in gone]

    def with_change(self, withdrawn: Sequence[Change] = (),
                    entered: Sequence[Change] = ()) -> Settings:
        """Return these settings with more withdrawals and entries (entries join `bots`)."""
        bots = (*self.bots, *(c.bot for c in entered if c.bot not in self.bots))
        return replace(self, bots=tuple(bots), withdrawn=(*self.withdrawn, *withdrawn),
                       entered=(*self.entered, *entered))

    def standings(self, games: Sequence[StoredGame], rounds: Sequence[RoundPlan],
                  with_fit: bool = True) -> Standings:
        """Return the standings after `games` (and, in a Swiss, the byes of `rounds`)."""
        return compute(list(self.bots), games, rounds, self.rule, self.table_size,
                       self.format == Format.SWISS.value, with_fit, self.seed, self.rating,
                       {c.bot: c.after_round for c in self.withdrawn})


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _changes(value: object) -> tuple[Change, ...]:
    if not isinstance(value, list):
        return ()
    out = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("bot"), str):
            out.append(Change(item["bot"], int(_number(item.get("after_round")) or 0)))
    return tuple(out)
