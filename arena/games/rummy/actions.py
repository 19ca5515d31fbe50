"""Actions of `machiavelli-rummy` and their wire form.

Wire form (the `action` of a `move` decision):
- `{"type": "draw"}`: draw the top card of the stock (a pass when the stock is empty);
- `{"type": "play", "table": [["7H", "8H", "9H"], ["QS", "QD", "JK"]]}`: the complete new
  table as explicit melds of card codes (see `cards`). Meld order and card order inside a
  meld are free; the engine stores each meld in canonical order.

Parsing checks only the shape and the card codes (`MalformedAction`); whether the table is
legal is the rules' business (`IllegalAction`). Imports only the standard library,
`arena.core` and this package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from arena.core.errors import MalformedAction
from arena.core.game import Json
from arena.games.rummy.cards import CODE_HELP, INDEX

MAX_TABLE_CARDS = 108
"""No table can hold more cards than the deck: a bigger payload is malformed."""


class ActionType(StrEnum):
    """The two kinds of move."""

    DRAW = "draw"
    PLAY = "play"


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card from the stock; with an empty stock, pass."""


@dataclass(frozen=True, slots=True)
class Play:
    """Replace the table by `table`: every old table card plus at least one from hand."""

    table: tuple[tuple[str, ...], ...]


RummyAction = Draw | Play


def action_to_wire(action: RummyAction) -> dict[str, Json]:
    """Return the wire form of an action."""
    if isinstance(action, Draw):
        return {"type": ActionType.DRAW.value}
    return {"type": ActionType.PLAY.value, "table": [list(meld) for meld in action.table]}


def wire_text(value: Json) -> str:
    """Return `value` as compact JSON: fault details quote the wire, which a bot author can
    read, parse and paste back (a Python repr such as `[('AD', '2D')]` is not JSON)."""
    return json.dumps(value, separators=(",", ":"), default=repr)


def parse_action(payload: Json) -> RummyAction:
    """Turn a wire payload into an action.

    Raises:
        MalformedAction: not an object, an unknown `type`, or a `table` that is not a list
            of lists of card codes; the message names the offending place.
    """
    if not isinstance(payload, dict):
        raise MalformedAction(f"action must be a JSON object, not {type(payload).__name__}")
    kind = payload.get("type")
    if kind == ActionType.DRAW:
        _no_extra(payload, {"type"})
        return Draw()
    if kind == ActionType.PLAY:
        _no_extra(payload, {"type", "table"})
        return Play(_parse_table(payload.get("table")))
    raise MalformedAction(f'action.type must be "draw" or "play", not {wire_text(kind)}')


def _no_extra(payload: dict[str, Json], allowed: set[str]) -> None:
    extra = sorted(set(payload) - allowed)
    if extra:
        raise MalformedAction(f"action has unknown fields {wire_text(extra)}; allowed: "
                              f"{wire_text(sorted(allowed))}")


def _parse_table(table: Json) -> tuple[tuple[str, ...], ...]:
    if not isinstance(table, list):
        raise MalformedAction("action.table must be a list of melds (lists of card codes)")
    melds: list[tuple[str, ...]] = []
    total = 0
    for m, meld in enumerate(table):
        if not isinstance(meld, list):
            raise MalformedAction(f"action.table[{m}] must be a list of card codes")
        total += len(meld)
        if total > MAX_TABLE_CARDS:
            raise MalformedAction(f"action.table holds more than {MAX_TABLE_CARDS} cards")
        for c, code in enumerate(meld):
            if not isinstance(code, str) or code not in INDEX:
                raise MalformedAction(f"action.table[{m}][{c}]: {wire_text(code)} is not a card; "
                                      f"{CODE_HELP}")
        melds.append(tuple(meld))
    return tuple(melds)
