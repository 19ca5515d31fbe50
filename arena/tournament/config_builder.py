"""The keys of a tournament file (or a ladder's) that are the tournament's own: its name, game
and rules, table size, format and schedule, time, faults, seed and where it runs, each checked
with its line; the bots are read by `config_bots`.

`Builder` is what `config.parse_config` runs on the loaded document. It imports the values it
builds (`config_types`) and the bot entries, which never import it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.core.options import suggest
from arena.core.registry import Registry
from arena.core.words import count_of
from arena.referee.spec import FaultPolicy, TimeControl
from arena.tournament.clusterconf import placement
from arena.tournament.config_bots import BotEntries
from arena.tournament.config_problems import Problems
from arena.tournament.config_types import (
    TOP_KEYS,
    TOURNAMENT_FILE,
    UNSCORED,
    FileKind,
    Format,
    TableSize,
    TournamentConfig,
    bots_needed,
    count_games,
    fingerprint_of,
)
from arena.tournament.isolation import max_bots, pin_workers, sandbox_policy
from arena.tournament.ratings import BATCH, RATERS
from arena.tournament.yamlpos import LineDict

TIME_KEYS = ("move_ms", "bank_ms", "startup_ms")
FAULT_KEYS = ("max_faults",)
TRANSPORTS = ("ipc", "tcp")
SEED_LIMIT = 2**63
"""Seeds are 0 <= seed < SEED_LIMIT."""
DEFAULT_MAX_GAMES = 100_000
"""A tournament with more games must say so with `max_games`."""
MAX_GAMES = 10_000_000
"""The most games `max_games` may allow: the whole schedule is held in memory."""
MAX_MS = 86_400_000
"""Time limits are at most a day."""
MAX_CONCURRENCY = 1024
MAX_NAME = 100
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-|\.\.)\s*(\d+)\s*$")


class Builder:
    """Turns the loaded document into a config, adding problems as it goes."""

    def __init__(self, doc: LineDict, problems: Problems, base: Path,
                 registry: Registry, kind: FileKind = TOURNAMENT_FILE,
                 commands: bool = False) -> None:
        self.commands = commands
        self.doc = doc
        self.kind = kind
        self.p = problems
        self.base = base
        self.registry = registry
        self.entries = BotEntries(problems, base)
        """The bots of the file, and what reading them found (its warnings, its commands)."""

    def build(self, text: str) -> TournamentConfig | None:
        doc, p = self.doc, self.p
        p.unknown_keys(f"the {self.kind.what}", doc, self.kind.keys)
        for key in self.kind.required:
            if key not in doc and key != "bots":  # `_no_bots` says what the format needs
                p.add(1, f"the {self.kind.what} is missing required key {key!r}")
        name = self._name()
        fmt = self._enum("format", Format, Format.ROUND_ROBIN)
        rounds = self._int("rounds", None, minimum=1)
        if fmt is Format.SWISS and rounds is None and "rounds" not in doc:
            p.add(doc.line_of("format"), "a swiss tournament needs 'rounds' (an integer >= 1)")
        gpp = self._int("games_per_pairing", 1, minimum=1) or 1
        bots, bot_lines = self.entries.read(doc)
        game, table, rules = self._game(self.entries.listed)
        self._no_bots(fmt, table if self._known(game) else None)
        challengers = self._challengers(fmt, [b.name for b in bots], table)
        self._check_size(count_games(fmt, len(bots), table, rounds, gpp, len(challengers)))
        points = self._points(table.size)
        bye = self._number("bye_points")
        time, faults = self._time(), self._faults()
        concurrency = self._int("concurrency", None, minimum=1, maximum=MAX_CONCURRENCY)
        seed = self._seed()
        transport = self._choice("transport", "ipc", TRANSPORTS)
        sandbox = sandbox_policy(doc, p.add)
        bound = max_bots(doc, p.add, table.size)
        pinned = pin_workers(doc, p.add)
        cluster, bot_files = placement(doc, p.add)
        rating = self._choice("rating", BATCH, tuple(sorted(RATERS)))
        if p.items:
            if self.commands:  # one list of everything, not the commands after a fix
                self.entries.check_commands()
            return None
        raw = {k: _plain(doc.get(k)) for k in TOP_KEYS if k not in UNSCORED}
        fingerprint = fingerprint_of(raw)
        ignored = self._rounds_ignored(fmt, table, len(bots))
        return TournamentConfig(
            name=name, game=game, rules=rules, table=table, format=fmt, rounds=rounds,
            games_per_pairing=gpp, time=time, faults=faults, concurrency=concurrency,
            seed=seed or 0, out=self._out(name),
            bots=tuple(bots), challengers=tuple(challengers), points=points,
            bye_points=bye, fingerprint=fingerprint, source=self.p.source,
            bot_lines=bot_lines, transport=transport, sandbox=sandbox, max_bots=bound,
            pin_workers=pinned, cluster=cluster, bot_files=bot_files, scored=raw, rating=rating,
            warnings=(*self.entries.unused, *self._rounds_unused(ignored)),
            inert=("rounds",) if ignored is not None else (),
        )

    def _at(self, *keys: str) -> int:
        """The line of the first of `keys` the file has, else 1 (the file itself): the line
        of a missing key was the mapping's, the file's first key, whatever it was."""
        return next((self.doc.line_of(k) for k in keys if k in self.doc), 1)

    # scalars -------------------------------------------------------------------------
    def _name(self) -> str:
        name = self._str("name", "tournament")
        # the name is the default output directory runs/<name>: one plain path component
        if (name in (".", "..") or len(name) > MAX_NAME or name != name.strip()
                or any(c in "/\\" or ord(c) < 32 for c in name)):
            self.p.add(self.doc.line_of("name"), f"'name' {name!r} must be a plain file name "
                       f"(no '/', '\\', '..' or control characters; at most {MAX_NAME} "
                       "characters): it names the output directory runs/<name>")
            return "tournament"
        return name

    def _out(self, name: str) -> Path:
        """Return `out`: as written, relative to the file's directory; else runs/<name>
        in the current directory."""
        if "out" not in self.doc:
            return Path("runs", name)
        return self.base / self._str("out", f"runs/{name}")

    def _check_size(self, games: int) -> None:
        allowed = self._int("max_games", DEFAULT_MAX_GAMES, minimum=1, maximum=MAX_GAMES)
        if allowed is None or games <= allowed:
            return
        where = next((k for k in ("games_per_pairing", "rounds") if k in self.doc), "bots")
        if "max_games" in self.doc:
            self.p.add(self.doc.line_of("max_games"), f"this tournament has {games:,} games, "
                       f"more than 'max_games': {allowed:,}")
        elif games > MAX_GAMES:
            self.p.add(self.doc.line_of(where), f"this tournament has {games:,} games; arena "
                       f"runs at most {MAX_GAMES:,} in one tournament: check "
                       "'games_per_pairing' and 'rounds'")
        else:
            self.p.add(self.doc.line_of(where), f"this tournament has {games:,} games, more "
                       f"than {allowed:,}: check 'games_per_pairing' and 'rounds', or confirm "
                       f"a run this large with 'max_games: {games}'")

    def _seed(self) -> int | None:
        seed = self._int("seed", 1)
        if seed is not None and not 0 <= seed < SEED_LIMIT:
            self.p.add(self.doc.line_of("seed"),
                       f"'seed' must be from 0 to 2**63 - 1, not {seed}")
            return 1
        return seed

    def _choice(self, key: str, default: str, valid: tuple[str, ...]) -> str:
        """The string `key`, which must be one of `valid` (else a problem, and it is kept)."""
        value = self._str(key, default)
        if value not in valid:
            self.p.add(self.doc.line_of(key), f"{key} {value!r} is not one of {', '.join(valid)}")
        return value

    def _str(self, key: str, default: str) -> str:
        value = self.doc.get(key, default)
        if not isinstance(value, str) or not value.strip():
            self.p.add(self.doc.line_of(key), f"{key!r} must be a non-empty string")
            return default
        return value

    def _int(self, key: str, default: int | None, minimum: int | None = None,
             where: LineDict | None = None, maximum: int | None = None) -> int | None:
        mapping = self.doc if where is None else where
        if key not in mapping:
            return default
        value = mapping[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.p.add(mapping.line_of(key), f"{key!r} must be an integer, not {value!r}")
            return default
        if minimum is not None and value < minimum:
            self.p.add(mapping.line_of(key), f"{key!r} must be at least {minimum}")
            return default
        if maximum is not None and value > maximum:
            self.p.add(mapping.line_of(key), f"{key!r} must be at most {maximum:,}, not "
                       f"{value:,}")
            return default
        return value

    def _number(self, key: str) -> float | None:
        value = self.doc.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            self.p.add(self.doc.line_of(key), f"{key!r} must be a number, not {value!r}")
            return None
        return float(value)

    def _enum(self, key: str, enum: type[Format], default: Format) -> Format:
        value = self.doc.get(key, default.value)
        valid = [m.value for m in enum]
        if value not in valid:
            self.p.add(self.doc.line_of(key), f"{key!r}: {value!r} is not valid"
                       f"{suggest(str(value), valid)}; valid: {', '.join(valid)}")
            return default
        return enum(value)

    def _section(self, key: str, valid: tuple[str, ...]) -> LineDict:
        section = self.doc.get(key, LineDict())
        if not isinstance(section, LineDict):
            self.p.add(self.doc.line_of(key), f"{key!r} must be a mapping of {', '.join(valid)}")
            return LineDict()
        self.p.unknown_keys(repr(key), section, valid)
        return section

    def _time(self) -> TimeControl:
        section, base = self._section("time", TIME_KEYS), TimeControl()
        return TimeControl(
            move_ms=self._int("move_ms", base.move_ms, 1, section, MAX_MS) or base.move_ms,
            bank_ms=self._int("bank_ms", base.bank_ms, 0, section, MAX_MS) or 0,
            startup_ms=self._int("startup_ms", base.startup_ms, 1, section, MAX_MS)
            or base.startup_ms,
        )

    def _faults(self) -> FaultPolicy:
        section = self._section("faults", FAULT_KEYS)
        return FaultPolicy(self._int("max_faults", FaultPolicy().max_faults, 1, section)
                           or FaultPolicy().max_faults)

    def _points(self, seats: int) -> tuple[float, ...] | None:
        value = self.doc.get("points")
        if value is None:
            return None
        ok = isinstance(value, list) and value and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value)
        if not ok:
            self.p.add(self.doc.line_of("points"),
                       "'points' must be a list of numbers by placing, e.g. [3, 1, 0, 0]")
            return None
        if any(a < b for a, b in zip(value, value[1:], strict=False)):
            self.p.add(self.doc.line_of("points"), "'points' must not increase with placing")
        if len(value) < seats:
            self.p.add(self.doc.line_of("points"), f"'points' gives "
                       f"{count_of(len(value), 'place')}; "
                       f"tables of {seats} need {seats} (write 0 for those that score nothing)")
        return tuple(float(v) for v in value)

    # game and bots --------------------------------------------------------------------
    def _game(self, bot_count: int) -> tuple[str, TableSize, dict[str, Json]]:
        doc, p = self.doc, self.p
        name = doc.get("game")
        rules = doc.get("rules", LineDict())
        if not isinstance(rules, dict):
            p.add(doc.line_of("rules"), "'rules' must be a mapping of rule options")
            rules = {}
        try:
            engine = self.registry.get(str(name))
        except ConfigError as exc:
            if "game" in doc:
                p.add(doc.line_of("game"), f"{exc}{suggest(str(name), self.registry.names())}")
            return str(name), TableSize(2, 2), dict(rules)
        info = engine.info
        table = self._table_size(info.min_players, info.max_players, bot_count)
        # each table resolves the rules for its own size (defaults may depend on it)
        resolved = _plain(rules)
        try:
            engine.resolve_rules(table.size, rules)
        except ConfigError as exc:
            for problem in exc.problems:
                p.add(self._at("rules", "game"), f"rules: {problem}")
            return info.id, table, dict(rules)
        for smaller in range(table.size - 1, table.smallest - 1, -1):
            try:
                engine.resolve_rules(smaller, rules)
            except ConfigError as exc:
                if isinstance(doc.get("players_per_game"), int):
                    # the k-1 fallback is only taken where the game allows it: else byes
                    return info.id, TableSize(table.size, table.size), resolved
                for problem in exc.problems:
                    p.add(doc.line_of("players_per_game"),
                          f"tables of {smaller} are in the range, but: {problem}")
                break
        return info.id, table, resolved

    def _table_size(self, low: int, high: int, bot_count: int) -> TableSize:
        doc = self.doc
        value = doc.get("players_per_game", 2 if low <= 2 <= high else low)
        line = self._at("players_per_game", "bots")
        bounds: tuple[int, int] | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            bounds = (max(value - 1, low), value)
        elif isinstance(value, str) and (m := _RANGE.match(value)):
            bounds = (int(m.group(1)), int(m.group(2)))
        elif isinstance(value, list) and len(value) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            bounds = (value[0], value[1])
        if bounds is None:
            self.p.add(line, f"'players_per_game' must be an integer or a range like "
                       f"'{low}-{high}', not {value!r}")
            return TableSize(low, low)
        smallest, size = min(bounds), max(bounds)
        if smallest < low or size > high:
            self.p.add(line, f"'players_per_game' {value!r}: this game seats {low} to {high}")
            return TableSize(low, low)
        if bot_count and bot_count < smallest:
            # a size the file does not write is the game's default, said as such
            written = "players_per_game" in doc
            self.p.add(line, f"{count_of(bot_count, 'bot')} cannot fill a table: "
                       + (f"'players_per_game' {value!r}" if written else "a table")
                       + f" needs at least {smallest}"
                       + (" (a table may be a seat short)" if smallest < size else "")
                       + ("" if written else f" ('players_per_game' is not given: the "
                                              f"game's default is {value})"))
        return TableSize(size, smallest)

    def _rounds_unused(self, why: str | None) -> tuple[str, ...]:
        """A warning, at the line of `rounds`, where the format's schedule does not read it:
        an organiser who wrote `rounds: 7` expected seven rounds and got another count
        without a word."""
        if "rounds" not in self.doc or why is None:
            return ()
        return (f"{self.p.source}:{self.doc.line_of('rounds')}: 'rounds' has no effect: "
                f"{why} (each table 'games_per_pairing' times)",)

    @staticmethod
    def _rounds_ignored(fmt: Format, table: TableSize, bots: int) -> str | None:
        """Why the format's schedule reads no `rounds` (as `pairing.round_robin` and
        `pairing.gauntlet` build theirs), or None where it does."""
        if fmt is Format.SWISS:
            return None
        if fmt is Format.GAUNTLET:
            why = "a gauntlet plays each challenger against the whole field, in as many " \
                  "rounds as that takes"
        elif table.size == 2 and table.smallest == 2:
            why = (f"a round-robin at tables of 2 plays every pair once, in "
                   f"{count_of(bots - 1 + bots % 2, 'round')}")
        elif bots <= table.size:
            why = f"the {count_of(bots, 'bot')} fit one table, the whole round-robin"
        else:
            return None
        return why

    def _no_bots(self, fmt: Format, table: TableSize | None) -> None:
        """One line for a tournament file without bots (`bots:` missing, empty or null),
        saying what its format needs: a null `bots:` played a run of 0 games."""
        value = self.doc.get("bots")
        if "bots" not in self.kind.required or not (value is None or value == []):
            return
        what = "'bots' lists no bot" if "bots" in self.doc else \
            f"the {self.kind.what} is missing required key 'bots'"
        self.p.add(self._at("bots"), f"{what}: {bots_needed(fmt, table)}")

    def _known(self, game: str) -> bool:
        try:
            self.registry.get(game)
        except ConfigError:
            return False
        return True

    def _challengers(self, fmt: Format, names: list[str], table: TableSize) -> list[str]:
        value = self.doc.get("challengers", [])
        line = self._at("challengers", "format")  # a gauntlet's file has its `format`
        if fmt is not Format.GAUNTLET:
            if value:
                self.p.add(line, "'challengers' is only for format: gauntlet")
            return []
        if not isinstance(value, list) or not value or not all(isinstance(v, str)
                                                               for v in value):
            self.p.add(line, "a gauntlet needs 'challengers': a list of bot names")
            return []
        for v in value:
            if names and v not in names:
                self.p.add(line, f"challenger {v!r} is not a bot{suggest(v, names)}")
        field = [n for n in names if n not in value]
        if names and not field:
            self.p.add(line, "a gauntlet needs at least one bot that is not a challenger")
        elif field and len(names) >= table.smallest and len(field) < table.smallest - 1:
            # each table is a challenger and the field: a field too small plays 0 games
            self.p.add(line, f"{bots_needed(fmt, table)}; its field has "
                       f"{count_of(len(field), 'bot')} ({', '.join(field)})")
        return list(value)



def _plain(value: Any) -> Any:
    """Return `value` as plain JSON-ready data (line-aware containers stripped)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
