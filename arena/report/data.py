"""What a report shows, read from a tournament's directory: settings, standings, games.

Everything comes from the database (`results.sqlite`) and the replays beside it, through
the same road as `arena standings` (`Settings.standings`), so the report's table is the
command's table. The secret salt (`secret.salt`) is never read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from arena import __version__
from arena.core.errors import StoreError
from arena.core.game import Json
from arena.core.record import Fault, SeatRecord
from arena.ladder.store import ADVICE as LADDER_ADVICE
from arena.referee.replay import Replay, read_replay
from arena.referee.spec import TimeControl
from arena.report.ladder import LadderData, is_ladder, load_ladder
from arena.report.played import Header, Played, played, read_header
from arena.tournament.outputs import read_run
from arena.tournament.standings import Standings
from arena.tournament.store import (
    COMPARE_NAME,
    LADDER_NAME,
    RUN_ADVICE,
    Store,
    StoredGame,
)


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One stored game as the report lists it."""

    key: str
    round: int
    table: int
    repeat: int
    termination: str
    seats: tuple[SeatRecord, ...]
    faults: tuple[Fault, ...]
    replay: Path | None
    """The replay file, where it is found."""

    def seat_of(self, bot: str) -> SeatRecord | None:
        """Return the seat `bot` played in this game, if any."""
        return next((s for s in self.seats if s.bot == bot), None)


@dataclass(frozen=True, slots=True)
class RunData:
    """A tournament run as the report shows it."""

    directory: Path
    name: str
    settings: Mapping[str, Json]
    """The stored settings (never the salt)."""
    table: Standings
    games: tuple[GameEntry, ...]
    environment: Mapping[str, Json] = field(default_factory=dict)
    """Arena version, time control, fault policy, sandbox and limits, rules."""
    ladder: LadderData | None = None
    """The ladder's own table and rating history, when the directory is a ladder."""
    comparison: Mapping[str, Json] | None = None
    """`arena compare`'s verdict and figures (its compare.json), when the run is one."""
    played: Played | None = None
    """The arena versions and the time controls the games were played under."""

    @property
    def versions(self) -> dict[str, str]:
        """Each bot's version in its last game (a ladder's bots change versions)."""
        return {s.bot: s.version for g in self.games for s in g.seats}

    @property
    def game_id(self) -> str:
        """The versioned game id (`machiavelli@1`)."""
        return str(self.settings.get("game", ""))


def load_run(directory: Path) -> RunData:
    """Read a tournament directory.

    Raises:
        StoreError: no usable database in `directory`.
    """
    settings, games, table = read_run(directory, LADDER_ADVICE if is_ladder(directory)
                                      else RUN_ADVICE)
    ordered = sorted(games, key=lambda g: (g.key.round, g.key.table, g.key.repeat))
    entries = tuple(_entry(directory, g) for g in ordered)
    ladder = None
    if is_ladder(directory):
        ladder = load_ladder(directory)
        settings = _ladder_settings(directory)
    public = {k: v for k, v in settings.items() if "salt" not in k}
    name = str(settings.get("name") or directory.resolve().name)
    stated, finished = _stored(directory)
    # oldest first: by when each game was stored (a ladder's rounds, a resumed run's games)
    order = sorted(range(len(entries)), key=lambda i: (finished.get(entries[i].key, 0.0), i))
    headers = [read_header(entries[i].replay) for i in order]
    how = played(headers, [finished.get(entries[i].key) for i in order], stated, __version__)
    env = _environment([ordered[i] for i in order], headers, how, stated)
    return RunData(directory, name, public, table, entries, env, ladder,
                   _comparison(directory), how)


def _stored(directory: Path) -> tuple[dict[str, Json], dict[str, float]]:
    """The time control the run's file stated, as stored with the results (`scored`: the
    file's keys as written, so what it left out is the default), for games whose replays
    record less of it (before the start-up limit was recorded); {} if none was stored.
    And when each game was stored, by its key ({} where that cannot be read)."""
    try:
        store = Store.open(directory, None, check=False)  # read_run checked the file
    except StoreError:
        return {}, {}
    try:
        scored = store.scored() or {}
        finished = {str(key): when for key, when in store.finished().items()}
    except StoreError:
        scored, finished = {}, {}
    finally:
        store.close()
    if "time" not in scored:
        return {}, finished
    time = scored["time"]
    return {**asdict(TimeControl()), **(time if isinstance(time, dict) else {})}, finished


def _comparison(directory: Path) -> dict[str, Json] | None:
    """The comparison's verdict and figures; None for a tournament, and for a file that
    does not read as one (the report then shows the games without the verdict)."""
    try:
        found = json.loads((directory / COMPARE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("verdict"), str) \
        else None


def _ladder_settings(directory: Path) -> dict[str, Json]:
    """The ladder's settings as its ladder.yaml states them (it loaded: the ladder did)."""
    loaded = yaml.safe_load((directory / LADDER_NAME).read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


def _entry(directory: Path, stored: StoredGame) -> GameEntry:
    record = stored.record
    return GameEntry(str(stored.key), stored.key.round, stored.key.table, stored.key.repeat,
                     record.termination.value, record.seats, record.faults,
                     replay_path(directory, str(stored.key)))


def replay_path(directory: Path, key: str) -> Path | None:
    """Return a game's replay, in the run's replays/ where the runner writes it (the path in
    the record is relative to wherever the run was started, and may lead out of the run)."""
    path = directory / "replays" / f"{key}.jsonl"
    return path if path.is_file() else None


def _environment(games: Sequence[StoredGame], headers: Sequence[Header], how: Played,
                 stated_time: Mapping[str, Json]) -> dict[str, Json]:
    """What the newest of `games` recorded (oldest first, `headers` theirs): a ladder's
    file may change between runs, and its report shows what the ladder plays now. The
    time control as the newest replays record it, what they lack from `stated_time`."""
    env: dict[str, Json] = {}
    if games:
        record = games[-1].record
        env["rules"] = dict(record.rules)
        isolation = record.details.get("isolation")
        if isinstance(isolation, dict):
            env["isolation"] = isolation
    time = how.times[0].time if how.times else dict(stated_time)
    if time:
        env["time"] = time
    faults = next((h.max_faults for h in reversed(headers) if h.max_faults is not None), None)
    if faults is not None:
        env["max_faults"] = faults
    return env


def read_game(entry: GameEntry) -> Replay | None:
    """Return a game's replay, or None when it is missing (the report says so)."""
    return None if entry.replay is None else read_replay(entry.replay)


def slug(name: str, index: int) -> str:
    """Return a file name for a bot's page: its rank and its name's safe characters (two
    bots can differ only in characters a file name cannot hold)."""
    return f"{index}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)[:60]}"
