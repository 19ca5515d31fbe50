"""How each game of a run was played, as its replay's header records it: the arena version
that played it and its time control, gathered into what the report's Settings show.

The header is a replay's first line, written by the referee as the game starts
(`arena.referee.match`); only that line of each replay is read. A header written before
the referee recorded its version (`arena`, added to format 1 as `startup_ms` was) lacks it,
and one that cannot be read (no replay, not JSON) counts apart: neither stops the report.
A ladder's file may be edited between runs, so its games can have been played under
several time controls: the newest games' is the one shown, the others are listed with
their games and dates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.core.game import Json

HEADER_CAP = 1 << 20
"""The most of a replay's first line read for its header (a header is well under a kB)."""
TIME_KEYS = ("move_ms", "bank_ms", "startup_ms")


@dataclass(frozen=True, slots=True)
class Header:
    """What one game's replay header says of how the game was played."""

    arena: str | None = None
    """The arena version that played it; None where the header does not say."""
    time: dict[str, Json] | None = None
    """The time control's recorded keys with a whole number (None: none recorded)."""
    max_faults: Json = None
    read: bool = True
    """False where no header could be read (no replay, or not a replay's header)."""


UNREAD = Header(read=False)


def read_header(path: Path | None) -> Header:
    """Return what the replay at `path` records in its header; UNREAD where it has none."""
    if path is None:
        return UNREAD
    try:
        with path.open("rb") as handle:
            line = json.loads(handle.readline(HEADER_CAP))
    except (OSError, ValueError, RecursionError):  # a damaged file: the report goes on
        return UNREAD
    if not isinstance(line, dict) or line.get("type") != "header":
        return UNREAD
    version, time = line.get("arena"), line.get("time")
    recorded = {k: v for k, v in time.items() if k in TIME_KEYS and type(v) is int} \
        if isinstance(time, dict) else {}
    return Header(version if isinstance(version, str) and version else None,
                  dict(recorded) or None, line.get("max_faults"))


@dataclass(frozen=True, slots=True)
class Versions:
    """The arena versions that played a run's games, and the one building its report."""

    played: dict[str, int]
    """Each version's number of games, in the order the versions first played."""
    unrecorded: int
    """Games whose header does not say (played before the referee recorded it)."""
    unread: int
    """Games with no header to read (no replay, or a damaged one)."""
    built: str


@dataclass(frozen=True, slots=True)
class TimeSpan:
    """Games played under one time control: how many, when the first and the last ended."""

    time: dict[str, Json]
    games: int
    first: float | None
    last: float | None


@dataclass(frozen=True, slots=True)
class Played:
    """How a run's games were played: by which arena, under which time controls."""

    versions: Versions
    times: tuple[TimeSpan, ...] = ()
    """The newest games' time control first, then each earlier one, newest first."""


def played(headers: Sequence[Header], finished: Sequence[float | None],
           stated: Mapping[str, Json], built: str) -> Played:
    """Gather the games' headers (oldest game first, `finished` their times, None where
    not known; `stated`: the time control the run's file stated, for what a header lacks)
    for the report built by arena `built`."""
    return Played(versions(headers, built), time_history(headers, finished, stated))


def versions(headers: Sequence[Header], built: str) -> Versions:
    """The versions that played the games of `headers` (oldest first)."""
    counts: dict[str, int] = {}
    for header in headers:
        if header.arena is not None:
            counts[header.arena] = counts.get(header.arena, 0) + 1
    return Versions(counts, sum(1 for h in headers if h.read and h.arena is None),
                    sum(1 for h in headers if not h.read), built)


def time_history(headers: Sequence[Header], finished: Sequence[float | None],
                 stated: Mapping[str, Json]) -> tuple[TimeSpan, ...]:
    """The time controls the games were played under, the newest games' first. What a
    header lacks is taken from `stated`; a game that records less than a newer one (before
    `startup_ms` was recorded) counts with it where all it records agrees."""
    groups: list[tuple[dict[str, Json], list[float | None]]] = []
    for header, when in reversed(list(zip(headers, finished, strict=True))):
        if header.time is None:
            continue
        time = {**stated, **header.time}
        group = next((g for g in groups if all(g[0].get(k) == v for k, v in time.items())),
                     None)
        if group is None:
            group = (time, [])
            groups.append(group)
        group[1].append(when)
    return tuple(_span(time, ends) for time, ends in groups)


def _span(time: dict[str, Json], ends: Sequence[float | None]) -> TimeSpan:
    known = [e for e in ends if e is not None]
    return TimeSpan(time, len(ends), min(known, default=None), max(known, default=None))
