"""What a tournament file is once validated: `TournamentConfig` and its values (`Format`,
`TableSize`), the keys a file may hold (`FileKind`), its fingerprint, and what its format
needs and plays, counted without building the schedule (`bots_needed`, `count_games`).

Reads no file and reports no problem: `config_builder` does, and imports this module.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.core.game import Json
from arena.core.words import count_of
from arena.referee.sandbox import SandboxPolicy
from arena.referee.spec import BotSpec, FaultPolicy, TimeControl
from arena.tournament.pairing import ALL_SUBSETS_LIMIT, table_sizes
from arena.tournament.ratings import BATCH


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
        return replace(self, scored=raw, fingerprint=fingerprint_of(raw))

    def fingerprint_without(self, names: set[str]) -> str:
        """The fingerprint this file would have without the bots `names` (a bot that entered
        a Swiss late is in the file, not in the run's first fingerprint)."""
        if not names or self.scored is None:
            return self.fingerprint
        raw = dict(self.scored)
        bots = raw.get("bots")
        if isinstance(bots, list):
            raw["bots"] = [b for b in bots if not (isinstance(b, dict) and b.get("name") in names)]
        return fingerprint_of(raw)

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


def fingerprint_of(raw: Mapping[str, Any]) -> str:
    """The fingerprint of a file's fingerprinted keys (`raw`, as plain data)."""
    return hashlib.sha256(json.dumps(raw, sort_keys=True).encode()).hexdigest()[:16]


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
