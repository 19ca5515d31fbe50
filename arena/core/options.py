"""Generic checks of rule options against a game's `OptionSpec`s.

Engines call `resolve_options` first and then check what is specific to them.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from arena.core.errors import ConfigError
from arena.core.game import Json, OptionSpec


def suggest(word: str, valid: Sequence[str]) -> str:
    """Return ` (did you mean 'x'?)` for the nearest valid word, or an empty string."""
    close = difflib.get_close_matches(word, list(valid), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _type_ok(value: Json, default: Json) -> bool:
    if default is None:
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, type(default))


def resolve_options(
    game: str, specs: Sequence[OptionSpec], rules: Mapping[str, Json]
) -> tuple[dict[str, Json], list[str]]:
    """Fill in defaults and check names, types and finite choices.

    Returns the resolved options and the list of problems found (empty when all is well),
    so that callers can add their own problems before raising one `ConfigError`.
    """
    by_name = {spec.name: spec for spec in specs}
    problems: list[str] = []
    resolved: dict[str, Json] = {spec.name: spec.default for spec in specs}
    for key, value in rules.items():
        spec = by_name.get(key)
        if spec is None:
            valid = ", ".join(sorted(by_name))
            problems.append(f"unknown option {key!r}{suggest(key, list(by_name))}; valid: {valid}")
            continue
        if not _type_ok(value, spec.default):
            problems.append(
                f"option {key!r}: {value!r} is not a {type(spec.default).__name__}"
            )
            continue
        if spec.choices is not None and value not in spec.choices:
            valid = ", ".join(str(c) for c in spec.choices)
            problems.append(f"option {key!r}: {value!r} is not one of {valid}")
            continue
        resolved[key] = value
    return resolved, problems


def raise_problems(game: str, problems: list[str]) -> None:
    """Raise one `ConfigError` naming every problem, if there are any."""
    if problems:
        raise ConfigError(f"invalid rules for {game}:", problems)
