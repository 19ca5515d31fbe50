"""What differs between the tournament file a run was begun with and the one given now, in
the words of the file (`time.move_ms`, `bot carol: cmd`): said when --resume refuses a file
whose fingerprint differs, instead of two fingerprints alone. Pure: plain data in, lines
out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

SHOWN = 5
"""At most this many differences are named (and how many more there are)."""


def differences(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """Each difference as `where: before -> now` (or `bot X: added` / `removed`)."""
    found: list[str] = []
    for key in sorted(set(before) | set(now)):
        if key == "bots":
            found += _bots(before.get(key), now.get(key))
        else:
            found += _values(key, before.get(key), now.get(key))
    return found


def summary(before: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    """`differences`, the first `SHOWN` of them in one clause ("" when none is found)."""
    found = differences(before, now)
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return "; ".join(found[:SHOWN]) + more


def _values(where: str, old: Any, new: Any) -> list[str]:
    if old == new:
        return []
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        return [line for key in sorted(set(old) | set(new))
                for line in _values(f"{where}.{key}", old.get(key), new.get(key))]
    return [f"{where}: {_shown(old)} -> {_shown(new)}"]


def _bots(old: Any, new: Any) -> list[str]:
    before, now = _by_name(old), _by_name(new)
    found = [f"bot {name}: {'added' if name not in before else 'removed'}"
             for name in sorted(set(before) ^ set(now))]
    for name in sorted(set(before) & set(now)):
        found += [line.replace(f"bot {name}.", f"bot {name}: ", 1)
                  for line in _values(f"bot {name}", before[name], now[name])]
    if not found and old != new:
        found.append("bots: their order")
    return found


def _by_name(bots: Any) -> dict[str, Any]:
    if not isinstance(bots, list):
        return {}
    return {str(b.get("name")): {k: v for k, v in b.items() if k != "name"}
            for b in bots if isinstance(b, Mapping)}


def _shown(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value, sort_keys=True)
