"""Event constructors shared by the rules modules: every module builds its events with
`public` and `private` (one style; they build through `arena.core.hotpath`).

The few events made at nearly every decision (a character called, a pick, a turn ended, cards
gathered and kept) come from `EventTable`s instead: built once per distinct content, shared.

Convention: an event that changes any seat's gold carries `"gold": [{"seat": s, "delta": d}]`,
so a client (or a test) can follow every balance from events alone.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from typing import Any

from arena.core.game import Event, Json
from arena.core.hotpath import private_event, public_event

public = public_event
"""`public(kind, **data)`: an event every seat may see."""
private = private_event
"""`private(to, kind, **data)`: an event only seat `to` may see."""


def gold(*changes: tuple[int, int]) -> list[dict[str, Json]]:
    """Return the `gold` field for the given (seat, delta) pairs."""
    return [{"seat": seat, "delta": delta} for seat, delta in changes]


class EventTable(dict[Any, Event]):
    """The events of one kind keyed by their data's values (in `fields` order; the value
    itself for one field), built on first use and shared afterwards, as the interned
    actions are: an event is an immutable value, and these hold only strings, seats and
    flags. A hit is one dict lookup instead of building an event (~0.4 us); they are the
    events of about one decision in two (bench/engine.py). `private`: seen only by the seat
    named by the first field."""

    def __init__(self, kind: str, *fields: str, private: bool = False) -> None:
        super().__init__()
        self.kind, self.fields, self.private = kind, fields, private

    def __missing__(self, key: Any) -> Event:
        values = key if len(self.fields) > 1 else (key,)
        data = dict(zip(self.fields, values, strict=True))
        event = self[key] = (private_event(values[0], self.kind, **data) if self.private
                             else public_event(self.kind, **data))
        return event


CHARACTER_CALLED = EventTable("character_called", "character", "seat", "killed")
TURN_ENDED = EventTable("turn_ended", "seat", "character")
CHARACTER_PICKED = EventTable("character_picked", "seat")
OWN_PICK = EventTable("own_pick", "seat", "character", private=True)
GATHERED_CARDS = EventTable("gathered_cards", "seat", "count")
KEPT_CARD = EventTable("kept_card", "seat", "returned")
