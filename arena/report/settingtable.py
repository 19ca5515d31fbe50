"""The report's Settings table: one row per setting, from the stored settings and what the
games recorded.

The two sources share names with other meanings: a tournament's `rules` is the version of
its pairing and standings rules, the games' `rules` the game's resolved rules; a ladder's
file states `time` and `faults`, which its games' replays record too. Shown as they came,
the table had two rows called `rules` (and two called `time` for a ladder). Here each
setting gets one row under a name that says which it is, and the time control is one line
with the bots' start-up allowance beside the move limit and the bank.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.core.game import Json

SettingRow = tuple[str, Json]
"""A row's name and its value (a mapping or a list is shown as JSON)."""
MERGED = ("time", "faults", "max_faults")
"""Keys shown as one row each whichever source holds them (`time control`, `max_faults`):
the games' record first, the stored settings for what it lacks."""


def setting_rows(settings: Mapping[str, Json], environment: Mapping[str, Json]
                 ) -> list[SettingRow]:
    """The Settings table: the stored settings (empty ones left out), then what the games
    recorded (arena version, game rules, sandbox, time control, fault limit)."""
    rows = [_stored(key, value) for key, value in settings.items()
            if value is not None and value != [] and key not in MERGED
            and not (key == "rules" and isinstance(value, dict) and "rules" in environment)]
    rows += [("game rules" if key == "rules" else key, value)
             for key, value in environment.items() if key not in MERGED]
    rows.append(("time control", time_control(_time(settings, environment))))
    faults = _max_faults(settings, environment)
    if faults is not None:
        rows.append(("max_faults", faults))
    return rows


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
