"""Replays: one JSONL file per game, written as the game is played, and read back.

Lines: a `header` (game id, resolved rules, seed, bots), one `decision` per decision (seat,
kind, action, where it came from, fault, time used, events with their visibility), a
`forfeit` line when a seat forfeits, and the `outcome` with the full record. What each
seat saw, and the whole game, can be rebuilt from it (`arena.referee.review`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import msgspec

from arena.core.errors import ArenaError
from arena.core.game import Event, Json
from arena.core.record import Fault, GameRecord

FORMAT = 1


@dataclass(frozen=True, slots=True)
class Step:
    """One decision as it was played."""

    n: int
    seat: int
    kind: str
    action: Json
    source: str
    """`bot`, `builtin`, `default` (after a fault) or `autopilot` (forfeited seat)."""
    time_ms: float
    events: tuple[Event, ...]
    fault: Fault | None = None
    request: int | None = None
    """The request id sent to the bot, if any."""

    def to_json(self) -> dict[str, Json]:
        """Return the replay line."""
        return {
            "type": "decision", "n": self.n, "seat": self.seat, "kind": self.kind,
            "action": self.action, "source": self.source, "request": self.request,
            "time_ms": round(self.time_ms, 3),
            "fault": self.fault.to_json() if self.fault else None,
            "events": [{"event": e.to_wire(),
                        "visible_to": None if e.visible_to is None else sorted(e.visible_to)}
                       for e in self.events],
        }


_ENCODE = msgspec.json.Encoder().encode
"""Compact UTF-8 JSON. What it buys: a line per decision, written while the game is played,
through `json.dumps` and a text file, was about a sixth of the referee's CPU per game: its
thread's 16.1-16.4 ms against 13.6-13.8 ms with msgspec and a binary file (4-seat
`machiavelli` games of Python bots, the same 40 games each way, alternated, pinned). The
same JSON but for letters outside ASCII, written as UTF-8 rather than escaped (every reader
decodes UTF-8)."""


class ReplayWriter:
    """Appends replay lines to a file, one JSON object per line."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file: IO[bytes] = path.open("wb")

    def write(self, line: Mapping[str, Json]) -> None:
        """Write one line."""
        self._file.write(_ENCODE(line) + b"\n")

    def close(self) -> None:
        """Flush and close the file."""
        self._file.close()


@dataclass
class Replay:
    """A replay read back from disk."""

    header: dict[str, Json]
    steps: list[dict[str, Json]] = field(default_factory=list)
    forfeits: list[dict[str, Json]] = field(default_factory=list)
    outcome: dict[str, Json] | None = None

    @property
    def record(self) -> GameRecord | None:
        """The game record, if the game finished."""
        return GameRecord.from_json(self.outcome["record"]) if self.outcome else None


_JSON_NAMES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}
"""What JSON calls the value `json.loads` gives as each Python type."""


def read_replay(path: Path) -> Replay:
    """Read a replay file.

    Raises:
        ArenaError: the file is not a replay, naming the line at fault.
    """
    replay: Replay | None = None
    offset = 0
    try:
        lines = path.read_bytes().splitlines(keepends=True)
    except OSError as exc:
        raise ArenaError(f"cannot read replay {path}: {exc.strerror}") from None
    for number, raw in enumerate(lines, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ArenaError(f"{path}:{number}: not UTF-8 text: byte 0x{raw[exc.start]:02x} "
                             f"at byte offset {offset + exc.start}") from None
        offset += len(raw)
        try:
            line = json.loads(text)
        except ValueError as exc:
            raise ArenaError(f"{path}:{number}: not a replay line ({exc})") from None
        except RecursionError:  # json's decoder recurses once per level of nesting
            raise ArenaError(f"{path}:{number}: not a replay line (nested too deeply to "
                             "read)") from None
        # said of the line: "('type')" (a KeyError's words) or a TypeError's of indexing
        if not isinstance(line, dict) or not isinstance(line.get("type"), str):
            what = "no \"type\" string" if isinstance(line, dict) else \
                f"a JSON {_JSON_NAMES.get(type(line), 'value')}, not an object"
            raise ArenaError(f"{path}:{number}: not a replay line ({what})")
        kind = line["type"]
        if replay is None:
            if kind != "header":
                raise ArenaError(f"{path}:{number}: a replay starts with a header line")
            _check_header(line, f"{path}:{number}")
            replay = Replay(line)
        elif kind == "decision":
            _check_decision(line, f"{path}:{number}")
            replay.steps.append(line)
        elif kind == "forfeit":
            replay.forfeits.append(line)
        elif kind == "outcome":
            replay.outcome = line
        else:
            raise ArenaError(f"{path}:{number}: unknown line type {kind!r}")
    if replay is None:
        raise ArenaError(f"{path}: empty replay")
    return replay


HEADER_FIELDS: dict[str, type] = {"game": str, "players": int, "seed": int, "rules": dict}
DECISION_FIELDS: dict[str, type] = {"n": int, "seat": int, "kind": str, "source": str,
                                    "events": list}


def _check_header(line: dict[str, Json], where: str) -> None:
    """Refuse a header that lacks what re-simulating the game needs."""
    _check_fields(line, HEADER_FIELDS, f"{where}: the header's")


def _check_decision(line: dict[str, Json], where: str) -> None:
    """Refuse a decision line that lacks what showing or re-simulating it needs."""
    _check_fields(line, DECISION_FIELDS, f"{where}: the decision's")
    for key in ("action", "fault"):
        if key not in line:
            raise ArenaError(f"{where}: the decision's {key!r} is missing")
    events = line["events"]
    assert isinstance(events, list)
    if not all(isinstance(e, dict) and "event" in e and "visible_to" in e for e in events):
        raise ArenaError(f"{where}: each of the decision's events needs 'event' and "
                         "'visible_to'")


_KINDS = {str: "a string", int: "an integer", list: "a list", dict: "a mapping"}


def _check_fields(line: dict[str, Json], fields: dict[str, type], what: str) -> None:
    for key, kind in fields.items():
        value = line.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ArenaError(f"{what} {key!r} is missing or not {_KINDS[kind]}")
