"""Builders of JSON Schema (draft 2020-12) fragments for a game's wire data.

Each game describes its observation, actions, events and decisions with these (its
`wire_schemas()`); `arena.protocol.schema` writes them beside the message schemas, and the
contract test validates real play against them. A tagged union is written as `if`/`then`
per tag rather than `oneOf`, so a validator names the one field that is wrong instead of
every variant that did not match. Must not import anything but the standard library and
`arena.core`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from arena.core.game import Json

NAT: dict[str, Json] = {"type": "integer", "minimum": 0}
INT: dict[str, Json] = {"type": "integer"}
BOOL: dict[str, Json] = {"type": "boolean"}
STR: dict[str, Json] = {"type": "string"}
SEAT: dict[str, Json] = {"type": "integer", "minimum": 0, "description": "a seat (0-based)"}


def enum(values: Iterable[Json], description: str = "") -> dict[str, Json]:
    """Return a schema accepting exactly `values`."""
    schema: dict[str, Json] = {"enum": list(values)}
    if description:
        schema["description"] = description
    return schema


def array(items: Json) -> dict[str, Json]:
    """Return a schema for a list of `items`."""
    return {"type": "array", "items": items}


def nullable(schema: Json) -> dict[str, Json]:
    """Return a schema accepting `schema` or null."""
    return {"anyOf": [schema, {"type": "null"}]}


def closed(fields: Mapping[str, Json], description: str = "",
           optional: Iterable[str] = ()) -> dict[str, Json]:
    """Return a schema for an object with these fields and no others, all required but the
    `optional` ones."""
    absent = set(optional)
    schema: dict[str, Json] = {"type": "object", "properties": dict(fields),
                               "required": [f for f in fields if f not in absent],
                               "additionalProperties": False}
    if description:
        schema["description"] = description
    return schema


def tagged(tag: str, variants: Mapping[str, Mapping[str, Json]],
           descriptions: Mapping[str, str], description: str,
           optional: Mapping[str, Iterable[str]] | None = None) -> dict[str, Json]:
    """Return a schema for objects told apart by the string field `tag`.

    `variants` maps each tag value to the other fields of its objects (all required but
    those `optional` names for it, no others allowed); `descriptions` says what each
    variant means.
    """
    cases = [
        {"if": {"properties": {tag: {"const": value}}, "required": [tag]},
         "then": closed({tag: {"const": value}, **fields}, descriptions.get(value, ""),
                        (optional or {}).get(value, ()))}
        for value, fields in variants.items()
    ]
    return {"type": "object", "description": description, "required": [tag],
            "properties": {tag: enum(variants)}, "allOf": cases}
