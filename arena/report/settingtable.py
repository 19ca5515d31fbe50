"""The report's Settings table: one row per setting, from the stored settings and what the
games recorded.

The two sources share names with other meanings: a tournament's `rules` is the version of
its pairing and standings rules, the games' `rules` the game's resolved rules; a ladder's
file states `time` and `faults`, which its games' replays record too. Shown as they came,
the table had two rows called `rules` (and two called `time` for a ladder). Here each
setting gets one row under a name that says which it is, and the time control is one line
with the bots' start-up allowance beside the move limit and the bank.

The `arena` row names the version that played the games, as their replays record it, and
the version building the report where that is another; the time control is the newest
games' (a ladder's file may be edited between runs), and any earlier one gets a row of its
own with its games and dates (`arena.report.played`).
"""

from __future__ import annotations

import time as clock
from collections.abc import Mapping, Sequence
from dataclasses import asdict

from arena.core.game import Json
from arena.core.words import count_of
from arena.referee.spec import TimeControl
from arena.report.played import Played, TimeSpan, Versions

SettingRow = tuple[str, Json]
"""A row's name and its value (a mapping or a list is shown as JSON)."""
MERGED = ("time", "faults", "max_faults")
"""Keys shown as one row each whichever source holds them (`time control`, `max_faults`):
the games' record first, the stored settings for what it lacks."""


def setting_rows(settings: Mapping[str, Json], environment: Mapping[str, Json],
                 played: Played | None = None) -> list[SettingRow]:
    """The Settings table: the stored settings (empty ones left out), then what the games
    recorded (arena version, game rules, sandbox, time control, fault limit); `played`:
    the versions and time controls of every game, where they were gathered."""
    rows = [_stored(key, value) for key, value in settings.items()
            if value is not None and value != [] and key not in MERGED
            and not (key == "rules" and isinstance(value, dict) and "rules" in environment)]
    if played is not None:
        rows.append(("arena", arena_versions(played.versions)))
    rows += [("game rules" if key == "rules" else key, value)
             for key, value in environment.items()
             if key not in MERGED and not (key == "arena" and played is not None)]
    rows += _time_rows(settings, environment, played.times if played is not None else ())
    faults = _max_faults(settings, environment)
    if faults is not None:
        rows.append(("max_faults", faults))
    return rows


def _time_rows(settings: Mapping[str, Json], environment: Mapping[str, Json],
               times: Sequence[TimeSpan]) -> list[SettingRow]:
    """The time control the newest games were played under; where `times` holds others,
    when those were played; where a ladder's file states another now, that one."""
    now = time_control(_time(settings, environment))
    if len(times) < 2:
        rows = [("time control", now)]
    else:
        rows = [("time control", f"{now} (the newest {_span(times[0])})"),
                ("earlier time controls",
                 " · ".join(f"{time_control(t.time)} ({_span(t)})" for t in times[1:]))]
    following = _next_run(settings, environment)
    return [*rows, ("next run's time control", following)] if following else rows


def _stored(key: str, value: Json) -> SettingRow:
    """A stored setting's row: a string list as names, the rules version by its meaning."""
    if key == "rules" and isinstance(value, int):
        return "tournament rules", f"version {value} (pairing and standings)"
    if key == "rules":  # a ladder file's rule options, where no game recorded its rules
        return "game rules", value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return key, ", ".join(str(v) for v in value)
    return key, value


def _time(settings: Mapping[str, Json], environment: Mapping[str, Json]) -> dict[str, Json]:
    """The time control the games recorded, what a replay written before it recorded the
    start-up limit lacks taken from the stored settings (a ladder's file states it)."""
    stored, recorded = settings.get("time"), environment.get("time")
    out = dict(stored) if isinstance(stored, dict) else {}
    if isinstance(recorded, dict):
        out.update(recorded)
    return out


def _max_faults(settings: Mapping[str, Json], environment: Mapping[str, Json]) -> Json:
    if "max_faults" in environment:
        return environment["max_faults"]
    faults = settings.get("faults")
    return faults.get("max_faults") if isinstance(faults, dict) else settings.get("max_faults")


def arena_versions(versions: Versions) -> str:
    """The arena versions that played the games, with the version building the report
    where it is not the one that played them all ("0.9.0 (report built with 0.10.0)")."""
    played, built = versions.played, versions.built
    unknown = [f"not recorded for {count_of(versions.unrecorded, 'game')}, played before "
               "arena recorded its version"] if versions.unrecorded else []
    if versions.unread:
        unknown.append(f"not known for {count_of(versions.unread, 'game')} without a "
                       "readable replay")
    if played:
        counted = len(played) > 1 or bool(unknown)
        text = "; ".join([", ".join(f"{v} ({count_of(n, 'game')})" if counted else v
                                    for v, n in played.items()), *unknown])
    elif versions.unrecorded and not versions.unread:
        text = "not recorded: the games were played before arena recorded its version"
    else:
        text = "; ".join(unknown) or "no games played yet"
    return text if list(played) == [built] else f"{text} (report built with {built})"


def _span(span: TimeSpan) -> str:
    """A time control's games and dates: "40 games, 2026-11-02 to 2026-11-20"."""
    days = [clock.strftime("%Y-%m-%d", clock.localtime(t))
            for t in (span.first, span.last) if t is not None]
    dates = "" if not days else f", {days[0]}" if days[0] == days[-1] else \
        f", {days[0]} to {days[-1]}"
    return count_of(span.games, "game") + dates


def _next_run(settings: Mapping[str, Json], environment: Mapping[str, Json]) -> str:
    """Where a ladder's file now states another time control than its newest games were
    played under (an edit applies to the next run's games), what it states; else ""."""
    stated, recorded = settings.get("time"), environment.get("time")
    if not isinstance(stated, dict) or not isinstance(recorded, dict):
        return ""
    now = {**asdict(TimeControl()), **stated}
    if all(recorded.get(k, v) == v for k, v in now.items()):
        return ""
    return f"{time_control(now)} (as the ladder's file states it since its newest games)"


def time_control(time: Mapping[str, Json]) -> str:
    """The time control in words: the move limit, the bank, the start-up allowance."""
    if not time:
        return "not recorded"
    move, bank, startup = time.get("move_ms"), time.get("bank_ms"), time.get("startup_ms")
    parts = [f"{move} ms a move" if move is not None else "move limit not recorded"]
    if bank:
        parts[0] += f" + a bank of {bank} ms a game (time over a move's limit)"
    parts.append(f"{startup} ms to start (a bot's hello)" if startup is not None
                 else "start-up limit not recorded (games played before arena recorded it)")
    return "; ".join(parts)
