"""Tournament files: YAML -> `TournamentConfig`, reporting every problem at once with its line.

The loader never stops at the first problem: it collects them all (each as `file:line: what,
and what is valid`) and raises one `ConfigError`. `preflight` checks that the bots' commands
exist, before any game starts. See docs/tournaments.md for the file format.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.core.options import suggest
from arena.core.registry import Registry
from arena.core.words import count_of
from arena.referee.players import BUILTINS
from arena.referee.sandbox import SandboxPolicy
from arena.referee.spec import BotSpec, FaultPolicy, Restart, TimeControl
from arena.tournament.clusterconf import placement
from arena.tournament.isolation import bot_network, max_bots, pin_workers, sandbox_policy
from arena.tournament.pairing import ALL_SUBSETS_LIMIT, table_sizes
from arena.tournament.ratings import BATCH, RATERS
from arena.tournament.yamlpos import LineDict, LineList, load

PYTHON_PLACEHOLDER = "{python}"
"""In a bot's `cmd`, replaced by the interpreter running arena (`sys.executable`)."""
PYTHONS = ("python", "python3")
"""A command's first word that means the interpreter running arena too: the `python` on an
organiser's PATH may be a shim (pyenv's) that cannot run in the sandbox, and lacks
`arena.client`; every bot passed its checks and then forfeited. A Python of one's own is
named by its path."""


def with_python(parts: Sequence[str]) -> tuple[str, ...]:
    """A bot's argv with `{python}`, and a first word in `PYTHONS` (after `stdio:`), as the
    interpreter running arena."""
    argv = [part.replace(PYTHON_PLACEHOLDER, sys.executable) for part in parts]
    if argv:
        prefix = "stdio:" if argv[0].startswith("stdio:") else ""
        if argv[0].removeprefix(prefix) in PYTHONS:
            argv[0] = prefix + sys.executable
    return tuple(argv)


class Format(StrEnum):
    """How tables are formed."""

    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"
    GAUNTLET = "gauntlet"


@dataclass(frozen=True, slots=True)
class TableSize:
    """Allowed seats per table: `size` normally, down to `smallest` when bots do not divide."""

    size: int
    smallest: int


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A validated tournament file."""

    name: str
    game: str
    rules: Mapping[str, Json]
    table: TableSize
    format: Format
    rounds: int | None
    games_per_pairing: int
    time: TimeControl
    faults: FaultPolicy
    concurrency: int | None
    seed: int
    out: Path
    bots: tuple[BotSpec, ...]
    challengers: tuple[str, ...] = ()
    points: tuple[float, ...] | None = None
    """Points by placing (index 0 is first place); None means `seats - placing`."""
    bye_points: float | None = None
    """Points for a Swiss bye; None means the mean points of a full table's seat."""
    fingerprint: str = ""
    """A hash of everything that decides the schedule and the results (not `out`, not
    `concurrency`): a results database belongs to exactly one fingerprint."""
    source: str = "<string>"
    bot_lines: Mapping[str, int] | None = None
    transport: str = "ipc"
    """How bots reach the referee: `ipc` (a private socket file) or `tcp` (loopback; for
    ZeroMQ libraries without ipc, such as JeroMQ). It changes no result."""
    sandbox: SandboxPolicy = SandboxPolicy()
    """The bots' sandbox and limits (`sandbox:`, `limits:`; see docs/security.md)."""
    max_bots: int | None = None
    """Bot processes alive at once per worker (`max_bots:`); None: twice the table size."""
    pin_workers: bool = False
    """Each local worker, and the bots it starts, runs on one core of its own (`pin_workers:`;
    round robin when workers outnumber the cores). It changes no result."""
    cluster: str | None = None
    """The Dask cluster that plays the games (`executor: dask`, `cluster:`; `local[:N]`
    starts one on this machine); None: local worker processes."""
    bot_files: str = "bundle"
    """How bots reach a cluster's workers: `bundle` (packed and sent) or `shared` (the
    same paths on a filesystem every worker mounts)."""
    scored: Mapping[str, Any] | None = None
    """The file's keys that make the fingerprint, as plain data."""
    rating: str = BATCH
    """The batch rater of the final table (`rating:`, a name in `ratings.RATERS`)."""
    warnings: tuple[str, ...] = ()
    """What the file asks for that has no effect (`source:line: what`): a run goes on."""
    inert: tuple[str, ...] = ()
    """Fingerprinted keys that change nothing in this file (`rounds` where the format reads
    none): a run under way goes on when only they differ from its first file's."""

    def adopting(self, first: Mapping[str, Any]) -> TournamentConfig | None:
        """This file with the `inert` keys' values of the file a run began with (`first`,
        its fingerprinted keys), where they are all that differ; else None. Removing
        `rounds` as its warning says it changes nothing stopped `--resume` of that run."""
        if not self.inert or self.scored is None:
            return None
        raw = {k: v for k, v in self.scored.items() if k not in self.inert}
        if raw != {k: v for k, v in first.items() if k not in self.inert}:
            return None
        raw.update({k: first.get(k) for k in self.inert})
        return replace(self, scored=raw, fingerprint=_fingerprint(raw))

    def fingerprint_without(self, names: set[str]) -> str:
        """The fingerprint this file would have without the bots `names` (a bot that entered
        a Swiss late is in the file, not in the run's first fingerprint)."""
        if not names or self.scored is None:
            return self.fingerprint
        raw = dict(self.scored)
        bots = raw.get("bots")
        if isinstance(bots, list):
            raw["bots"] = [b for b in bots if not (isinstance(b, dict) and b.get("name") in names)]
        return _fingerprint(raw)

    def bot_bound(self) -> int:
        """Bot processes alive at once per worker: `max_bots`, else twice the table size."""
        return self.max_bots if self.max_bots is not None else 2 * self.table.size

    def bot(self, name: str) -> BotSpec:
        """Return the bot called `name`."""
        return next(b for b in self.bots if b.name == name)


TOP_KEYS = ("name", "game", "rules", "players_per_game", "format", "rounds",
            "games_per_pairing", "time", "faults", "concurrency", "seed", "out", "bots",
            "transport", "sandbox", "limits", "max_bots", "pin_workers",
            "challengers", "points", "bye_points", "max_games", "executor", "cluster",
            "bot_files", "rating")
UNSCORED = ("out", "concurrency", "name", "transport", "max_games", "sandbox", "limits",
            "max_bots", "pin_workers", "executor", "cluster", "bot_files", "rating")
"""Keys that change neither the schedule nor the results: not in the fingerprint."""
REQUIRED = ("name", "game", "bots")


@dataclass(frozen=True, slots=True)
class FileKind:
    """What a file read by `parse_config` may hold: a tournament file, or a ladder's
    `ladder.yaml` (the same keys without the bots and the schedule, plus its own)."""

    keys: tuple[str, ...] = TOP_KEYS
    required: tuple[str, ...] = REQUIRED
    what: str = "tournament file"


TOURNAMENT_FILE = FileKind()
TIME_KEYS = ("move_ms", "bank_ms", "startup_ms")
FAULT_KEYS = ("max_faults",)
BOT_KEYS = ("name", "cmd", "cwd", "env", "restart", "network")
PROCESS_KEYS = ("cwd", "env", "restart", "network")
"""The keys of a bot that only a bot run as a process reads."""
TRANSPORTS = ("ipc", "tcp")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
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


class _Problems:
    """Collects `source:line: message` strings."""

    def __init__(self, source: str, what: str = "tournament file") -> None:
        self.source, self.what = source, what
        self.items: list[tuple[int, str]] = []

    def add(self, line: int, message: str) -> None:
        self.items.append((line, message))

    def unknown_keys(self, where: str, mapping: LineDict, valid: tuple[str, ...]) -> None:
        for key in mapping:
            if key not in valid:
                self.add(mapping.line_of(key), f"unknown key {key!r} in {where}"
                         f"{suggest(key, list(valid))}; valid: {', '.join(valid)}")

    def raise_if_any(self) -> None:
        if self.items:
            lines = [f"{self.source}:{line}: {msg}" for line, msg in sorted(self.items)]
            raise ConfigError(f"{count_of(len(lines), 'problem')} in {self.what} "
                              f"{self.source}:",
                              lines)


def load_config(path: Path, registry: Registry | None = None, *,
                commands: bool = False) -> TournamentConfig:
    """Read and validate a tournament file (`commands`: with `preflight`'s checks of the
    bots' commands among the problems, where there are others; else call it after).

    Raises:
        ConfigError: every problem in the file, each with its line.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read tournament file {path}: {exc.strerror}") from exc
    return parse_config(decode_utf8(data, str(path)), str(path), path.resolve().parent,
                        registry, commands=commands)


def decode_utf8(data: bytes, source: str) -> str:
    """Return `data` as text.

    Raises:
        ConfigError: the bytes are not UTF-8, naming the line and byte offset of the first
            bad byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{source}:{line}: not UTF-8 text: byte 0x{data[exc.start]:02x} at "
                          f"byte offset {exc.start}; save the file as UTF-8") from None


def parse_config(text: str, source: str = "<string>", base: Path | None = None,
                 registry: Registry | None = None,
                 kind: FileKind = TOURNAMENT_FILE, *, commands: bool = False) -> TournamentConfig:
    """Validate tournament YAML `text`; relative bot `cwd`s resolve against `base`.

    `kind` names the keys allowed and required (a ladder's file has no bots).

    Raises:
        ConfigError: every problem found, each with its line.
    """
    if registry is None:
        from arena.games import REGISTRY

        registry = REGISTRY
    problems = _Problems(source, kind.what)
    try:
        doc, duplicates = load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = str(getattr(exc, "problem", None) or exc)
        hint = " (often a line indented unlike the lines around it)" if any(
            words in problem for words in ("expected <block end>", "mapping values are not "
                                           "allowed", "could not find expected ':'")) else ""
        problems.add(line, f"not valid YAML: {problem}{hint}")
        problems.raise_if_any()
        raise AssertionError("unreachable") from exc
    for line, key in duplicates:
        problems.add(line, f"key {key!r} appears twice")
    if not isinstance(doc, LineDict):
        problems.add(1, "a tournament file is a mapping of keys (name, game, bots, ...)")
        problems.raise_if_any()
    assert isinstance(doc, LineDict)
    config = _Builder(doc, problems, base or Path.cwd(), registry, kind,
                      commands).build(text)
    problems.raise_if_any()
    assert config is not None
    return config


class _Builder:
    """Turns the loaded document into a config, adding problems as it goes."""

    def __init__(self, doc: LineDict, problems: _Problems, base: Path,
                 registry: Registry, kind: FileKind = TOURNAMENT_FILE,
                 commands: bool = False) -> None:
        self.commands = commands
        self.doc = doc
        self.kind = kind
        self.p = problems
        self.base = base
        self.registry = registry
        self.unused: list[str] = []
        """Warnings of keys that change nothing, in the file's order."""
        self.listed = 0
        """The file's bot entries, those refused for a problem too: whether they can fill a
        table is said of the file as it will be once they are fixed."""
        self.checks: list[tuple[int, str, BotSpec]] = []
        """Each bot entry with a command to look up (its line, how it is named, its command
        and cwd), the bots refused for another problem too."""

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
        bots, bot_lines = self._bots()
        game, table, rules = self._game(self.listed)
        self._no_bots(fmt, table if self._known(game) else None)
        challengers = self._challengers(fmt, [b.name for b in bots], table)
        self._check_size(count_games(fmt, len(bots), table, rounds, gpp, len(challengers)))
        points = self._points(table.size)
        bye = self._number("bye_points")
        time, faults = self._time(), self._faults()
        concurrency = self._int("concurrency", None, minimum=1, maximum=MAX_CONCURRENCY)
        seed = self._int("seed", 1)
        if seed is not None and not 0 <= seed < SEED_LIMIT:
            p.add(doc.line_of("seed"), f"'seed' must be from 0 to 2**63 - 1, not {seed}")
            seed = 1
        transport = self._str("transport", "ipc")
        if transport not in TRANSPORTS:
            p.add(doc.line_of("transport"),
                  f"transport {transport!r} is not one of {', '.join(TRANSPORTS)}")
        sandbox = sandbox_policy(doc, p.add)
        bound = max_bots(doc, p.add, table.size)
        pinned = pin_workers(doc, p.add)
        cluster, bot_files = placement(doc, p.add)
        rating = self._str("rating", BATCH)
        if rating not in RATERS:
            p.add(doc.line_of("rating"), f"rating {rating!r} is not one of "
                  f"{', '.join(sorted(RATERS))}")
        if p.items:
            if self.commands:  # one list of everything, not the commands after a fix
                self._check_commands()
            return None
        raw = {k: _plain(doc.get(k)) for k in TOP_KEYS if k not in UNSCORED}
        fingerprint = _fingerprint(raw)
        ignored = self._rounds_ignored(fmt, table, len(bots))
        return TournamentConfig(
            name=name, game=game, rules=rules, table=table, format=fmt, rounds=rounds,
            games_per_pairing=gpp, time=time, faults=faults, concurrency=concurrency,
            seed=seed or 0, out=self._out(name),
            bots=tuple(bots), challengers=tuple(challengers), points=points,
            bye_points=bye, fingerprint=fingerprint, source=self.p.source,
            bot_lines=bot_lines, transport=transport, sandbox=sandbox, max_bots=bound,
            pin_workers=pinned, cluster=cluster, bot_files=bot_files, scored=raw, rating=rating,
            warnings=(*self.unused, *self._rounds_unused(ignored)),
            inert=("rounds",) if ignored is not None else (),
        )

    def _check_commands(self) -> None:
        """Add each bot entry's command problems, a refused bot's too: a bot refused for a
        bad `restart` or `env` had its missing script said only once that was fixed."""
        for line, who, spec in self.checks:
            for problem in bot_problems(spec):
                self.p.add(line, f"{who}: {problem}")

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
            self.p.add(line, f"{count_of(bot_count, 'bot')} cannot fill a table: "
                       f"'players_per_game' "
                       f"{value!r} needs at least {smallest}"
                       + (" (a table may be a seat short)" if smallest < size else ""))
        return TableSize(size, smallest)

    def _bots(self) -> tuple[list[BotSpec], dict[str, int]]:
        value = self.doc.get("bots")
        if value is None or value == []:  # `_no_bots` says so, with what the format needs
            return [], {}
        if not isinstance(value, LineList):
            self.p.add(self.doc.line_of("bots"), "'bots' must be a list of bots, each a "
                       "mapping with 'name' and 'cmd'")
            return [], {}
        bots: list[BotSpec] = []
        lines: dict[str, int] = {}
        self.listed = len(value)
        for item, line in zip(value, value.item_lines, strict=True):
            bot = self._bot(item, line)
            # by the name written: a bot refused for another problem still takes its name
            name = item.get("name") if isinstance(item, LineDict) else None
            if isinstance(name, str) and name in lines:
                self.p.add(line, f"bot name {name!r} is already used on line {lines[name]}")
                continue
            if isinstance(name, str):
                lines[name] = line
            if bot is not None:
                bots.append(bot)
        return bots, {b.name: lines[b.name] for b in bots}

    def _bot(self, item: Any, line: int) -> BotSpec | None:
        if not isinstance(item, LineDict):
            shown = repr(item) if len(repr(item)) <= 60 else f"a {type(item).__name__}"
            self.p.add(line, f"each bot is a mapping with 'name' and 'cmd', not {shown}")
            return None
        who = _who(item)  # every problem of one bot names it: the file may list dozens
        self.p.unknown_keys(who, item, BOT_KEYS)
        ok = self._bot_name(item)
        argv = _argv(item.get("cmd"))
        if argv is None:
            wrong = "'cmd' must be" if "cmd" in item else "no 'cmd': it needs"
            self.p.add(item.line_of("cmd"), f"{who}: {wrong} a command string or a non-empty "
                       "list of strings")
        restart = item.get("restart", Restart.NEVER.value)
        if restart not in [r.value for r in Restart]:
            self.p.add(item.line_of("restart"), f"{who}: 'restart' {restart!r} is not valid; "
                       "valid: " + ", ".join(r.value for r in Restart))
            ok = False
        env = item.get("env", {})
        if not isinstance(env, dict) or not all(
                isinstance(v, str | int | float) for v in env.values()):
            self.p.add(item.line_of("env"), f"{who}: 'env' must map names to strings")
            ok = False
        cwd = item.get("cwd")
        cwd_ok = cwd is None or (isinstance(cwd, str) and "\0" not in cwd)
        if not cwd_ok:
            self.p.add(item.line_of("cwd"), f"{who}: 'cwd' must be a directory path")
        network = bot_network(item, self.p.add, who)
        if argv is None or not cwd_ok:
            return None  # no command, or no directory to look it up in
        directory = str((self.base / cwd).resolve()) if cwd else str(self.base)
        self.checks.append((line, who, BotSpec(str(item.get("name")), argv, directory)))
        if not ok:
            return None
        if argv[0].startswith("builtin:"):
            self._builtin_keys(item, who)
        return BotSpec(str(item["name"]), argv, directory,
                       {str(k): str(v) for k, v in env.items()}, Restart(restart),
                       network=network)

    def _builtin_keys(self, item: LineDict, who: str) -> None:
        """A warning at each key a built-in bot ignores: it plays inside the referee, with no
        process to give a directory, an environment, a restart rule or a network (a
        `cwd: nodir` passed without a word, as if it had been checked)."""
        for key in PROCESS_KEYS:
            if key in item:
                self.unused.append(f"{self.p.source}:{item.line_of(key)}: {who}: {key!r} has "
                                   f"no effect: {item['cmd']} plays inside the referee, "
                                   "with no process")

    def _bot_name(self, item: LineDict) -> bool:
        """Whether a bot's name is valid (else one problem says why)."""
        name = item.get("name")
        if isinstance(name, str) and _NAME.match(name):
            return True
        rule = ("ASCII letters, digits, '_', '.', '+' or '-', beginning with a letter or "
                "digit (it names files and command-line arguments)")
        if "name" not in item or name is None:
            cmd = item.get("cmd")
            shown = f" (cmd {cmd!r})" if isinstance(cmd, str | list) else ""
            self.p.add(item.line_of("name"), f"a bot without a 'name'{shown}: each bot "
                       f"needs a unique name of {rule}")
        else:
            self.p.add(item.line_of("name"), f"bot name {name!r} must be {rule}")
        return False

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


FORMAT_WORDS = {Format.ROUND_ROBIN: "a round-robin", Format.SWISS: "a swiss tournament",
                Format.GAUNTLET: "a gauntlet"}


def bots_needed(fmt: Format, table: TableSize | None) -> str:
    """What a format needs of its bots (`table` None: the game is unknown), for the line
    that says a file has too few: "a round-robin at tables of 4 needs at least 3 bots"."""
    if table is None:
        return f"{FORMAT_WORDS[fmt]} needs bots: a list of mappings with 'name' and 'cmd'"
    seats = f"{FORMAT_WORDS[fmt]} at tables of {table.size}"
    short = " (a table may be a seat short)" if table.smallest < table.size else ""
    if fmt is Format.GAUNTLET:
        field = count_of(max(1, table.smallest - 1), "bot")
        return f"{seats} needs its challengers and at least {field} besides them{short}"
    return f"{seats} needs at least {count_of(table.smallest, 'bot')}{short}"



def count_games(fmt: Format, bots: int, table: TableSize, rounds: int | None, repeats: int,
                challengers: int = 0) -> int:
    """Return the number of games of a tournament, without building its schedule.

    Mirrors `arena.tournament.pairing` (a test holds the two together), so that a huge
    tournament is refused before anything is built.
    """
    size, smallest = table.size, table.smallest
    if fmt is Format.SWISS:
        per_round = len(table_sizes(bots, size, smallest)[0])
        return (rounds or 1) * per_round * repeats
    if fmt is Format.GAUNTLET:
        field = bots - challengers
        others = max(1, min(size - 1, field))
        if others + 1 < smallest or field < 1:
            return 0
        subsets = math.comb(field, others)
        per = subsets if subsets <= ALL_SUBSETS_LIMIT else math.ceil(field / others)
        return challengers * per * repeats
    if size == 2 and smallest == 2:
        tables = math.comb(bots, 2)
    elif bots <= size:
        tables = 1 if bots >= smallest else 0
    elif rounds is None and math.comb(bots, size) <= ALL_SUBSETS_LIMIT:
        tables = math.comb(bots, size)
    else:
        count = rounds or math.ceil((bots - 1) / (size - 1))
        tables = count * len(table_sizes(bots, size, smallest)[0])
    return tables * repeats


def _who(item: LineDict) -> str:
    """How a bot's problems name it: `bot 'alice'`, or `the bot without a 'name'`."""
    name = item.get("name")
    return f"bot {name!r}" if isinstance(name, str) and name else "the bot without a 'name'"


def _fingerprint(raw: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(raw, sort_keys=True).encode()).hexdigest()[:16]


def _argv(cmd: Any) -> tuple[str, ...] | None:
    if isinstance(cmd, str):
        try:
            parts = shlex.split(cmd)
        except ValueError:
            return None
    elif isinstance(cmd, list) and all(isinstance(c, str | int | float) for c in cmd):
        parts = [str(c) for c in cmd]
    else:
        return None
    if not parts:
        return None
    return with_python(parts)


def _plain(value: Any) -> Any:
    """Return `value` as plain JSON-ready data (line-aware containers stripped)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".rb", ".jar", ".pl", ".sh")


def preflight(config: TournamentConfig) -> None:
    """Check that every bot's program (and script file) exists, before any game starts.

    Raises:
        ConfigError: every missing command or script, with the line of its bot.
    """
    problems = _Problems(config.source)
    for bot in config.bots:
        for problem in bot_problems(bot):
            problems.add(_line(config, bot), f"bot {bot.name!r}: {problem}")
    problems.raise_if_any()


def bot_problems(bot: BotSpec) -> list[str]:
    """What keeps one bot from starting: an unknown built-in, a cwd that is no directory,
    a program or script that is missing or not executable (`_command_problems`)."""
    if bot.builtin is not None:
        return [] if bot.builtin in BUILTINS else [
            f"unknown built-in bot {bot.cmd[0]!r}; valid: "
            + ", ".join(f"builtin:{b}" for b in BUILTINS)]
    cwd = Path(bot.cwd or ".")
    try:
        if not cwd.is_dir():
            return [f"cwd {cwd} is not a directory"]
        return _command_problems(bot.cmd, cwd)
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte: a line, no traceback
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return [f"its command or cwd cannot be looked up: {why}"]


INTERPRETER = re.compile(r"(python|node|ruby|perl|bash|sh|php|lua|Rscript)[\d.]*")
"""Programs (`python3.11` too) whose first argument, unless an option, is the script they
run: `{python} bots/mybot`, a script without a suffix, was found missing only by the game."""


def _command_problems(cmd: Sequence[str], cwd: Path) -> list[str]:
    """What is missing of a bot's command: its program, or not executable; a script file
    (by its suffix, or as an interpreter's first argument)."""
    program = cmd[0].removeprefix("stdio:")  # a stdio bot runs behind the bridge
    found = shutil.which(program, path=None) if "/" not in program else (
        str(cwd / program) if (cwd / program).is_file() else None)
    if found is None:
        return [f"command {program!r} not found"]
    found_problems = [] if os.access(found, os.X_OK) else [f"{program!r} is not executable "
                                                           "(chmod +x it)"]
    name = os.path.basename(program)
    script = cmd[1] if len(cmd) > 1 and not cmd[1].startswith("-") and \
        INTERPRETER.fullmatch(name) else None
    for arg in cmd[1:]:
        if (arg.endswith(SCRIPT_SUFFIXES) or arg == script) and not (cwd / arg).is_file():
            found_problems.append(f"file {arg!r} not found in {cwd.resolve()}")
    return found_problems


def _line(config: TournamentConfig, bot: BotSpec) -> int:
    return (config.bot_lines or {}).get(bot.name, 1)
