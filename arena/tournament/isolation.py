"""The `sandbox:`, `limits:`, `max_bots:` and `pin_workers:` keys of a tournament file, and a bot's
`network:`: what a bot's processes may be and how many of them live at once.

Kept apart from `config.py` so that what decides a bot's isolation reads in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from arena.core.options import suggest
from arena.referee.limits import Limits
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.tournament.yamlpos import LineDict

LIMIT_KEYS = tuple(f.name for f in fields(Limits))
LIMIT_BOUNDS = {"memory_mb": (16, 1 << 20), "processes": (1, 1 << 16),
                "open_files": (16, 1 << 20), "scratch_mb": (1, 1 << 20),
                "cpu_s": (1, 7 * 86_400)}
"""Smallest and largest accepted value of each limit."""

Report = Callable[[int, str], None]


def sandbox_policy(doc: LineDict, report: Report) -> SandboxPolicy:
    """Read `sandbox:` (auto | bwrap | none) and `limits:`; report problems with their line."""
    mode = SandboxMode.AUTO
    raw = doc.get("sandbox", SandboxMode.AUTO.value)
    valid = [m.value for m in SandboxMode]
    if raw not in valid:
        report(doc.line_of("sandbox"), f"sandbox {raw!r} is not one of {', '.join(valid)}"
               f"{suggest(str(raw), valid)}")
    else:
        mode = SandboxMode(raw)
    return SandboxPolicy(mode, _limits(doc, report))


def _limits(doc: LineDict, report: Report) -> Limits:
    section = doc.get("limits", LineDict())
    if not isinstance(section, LineDict):
        report(doc.line_of("limits"), "'limits' must be a mapping of "
               f"{', '.join(LIMIT_KEYS)}")
        return Limits()
    values: dict[str, int] = {}
    for key, value in section.items():
        line = section.line_of(key)
        if key not in LIMIT_KEYS:
            report(line, f"unknown key {key!r} in limits{suggest(key, list(LIMIT_KEYS))}; "
                   f"valid: {', '.join(LIMIT_KEYS)}")
            continue
        low, high = LIMIT_BOUNDS[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            report(line, f"limits.{key} must be an integer from {low} to {high}, not {value!r}")
            continue
        values[key] = value
    return Limits(**values)


def bot_network(item: LineDict, report: Report, who: str) -> bool:
    """Read a bot's `network:` (true gives a sandboxed bot the host's network); `who` names
    the bot in the problem (`bot 'alice'`)."""
    value = item.get("network", False)
    if not isinstance(value, bool):
        report(item.line_of("network"), f"{who}: 'network' must be true or false, not "
               f"{value!r}")
        return False
    return value


def max_bots(doc: LineDict, report: Report, table_size: int) -> int | None:
    """Read `max_bots:` (bot processes alive at once per worker; None: the default)."""
    value = doc.get("max_bots")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not \
            table_size <= value <= MAX_BOTS:
        report(doc.line_of("max_bots"), f"'max_bots' must be an integer from the table size "
               f"({table_size}) to {MAX_BOTS}, not {value!r}: a game needs all its bots alive")
        return None
    return value


MAX_BOTS = 100_000


def pin_workers(doc: LineDict, report: Report) -> bool:
    """Read `pin_workers:` (each local worker and its bots on one core; default false)."""
    value = doc.get("pin_workers", False)
    if not isinstance(value, bool):
        report(doc.line_of("pin_workers"), f"'pin_workers' must be true or false, not "
               f"{value!r}")
        return False
    return value
