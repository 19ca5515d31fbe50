"""Validation against a game's own JSON Schemas (protocol/schemas/<game>.<part>.schema.json,
exported from `Game.wire_schemas`), shared by the contract test and the message tests."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping

import jsonschema

from arena.core.game import Json
from arena.protocol.schema import load_game_schema, load_schema


@functools.cache
def validator(game: str, part: str, tag: str | None = None) -> jsonschema.Draft202012Validator:
    """The validator of a game's schema; with `tag`, of the one variant of a tagged union
    (`tagged` in arena/core/wire_schema.py) that applies to objects with that tag: the
    same verdict as the whole schema, a fraction of its cost, and a clearer message."""
    schema = load_game_schema(game, part)
    if tag is not None:
        (field,) = schema["required"]
        cases = [case["then"] for case in schema["allOf"]
                 if case["if"]["properties"][field]["const"] == tag]
        schema = cases[0] if cases else {**schema, "allOf": []}
    else:
        jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


_CONFORMING: set[tuple[str, str, str]] = set()
"""Values already found valid (events and actions repeat; validation is slow)."""


def conforms(game: str, part: str, value: Json) -> None:
    """Assert that `value` matches the game's `part` schema, naming what differs."""
    key = (game, part, json.dumps(value, sort_keys=True))
    if key in _CONFORMING:
        return
    schema = validator(game, part).schema
    tag = None
    # a JSON Schema may be a bare `true`/`false`; a game's never is, but only this says so
    if isinstance(schema, Mapping) and "allOf" in schema and isinstance(value, dict):
        tag = value.get(schema["required"][0])
    check = validator(game, part, tag) if isinstance(tag, str) else validator(game, part)
    error = jsonschema.exceptions.best_match(check.iter_errors(value))
    assert error is None, (
        f"{game} {part} does not match protocol/schemas/{game}.{part}.schema.json (update "
        f"the game's wire_schemas(), then run python -m arena.protocol.schema): "
        f"{error.message} at "
        f"{'/'.join(map(str, error.absolute_path)) or 'top'} in {json.dumps(value)[:400]}")
    _CONFORMING.add(key)


@functools.cache
def _message_validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_schema(name))


def message_conforms(name: str, message: Json) -> None:
    """Assert that `message` matches the message schema `name` (e.g. `request`)."""
    error = jsonschema.exceptions.best_match(_message_validator(name).iter_errors(message))
    assert error is None, f"{name}: {error.message} in {json.dumps(message)[:400]}"
