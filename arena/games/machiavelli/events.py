"""Event constructors shared by the rules modules: every module builds its events with
`public` and `private` (one style; they build through `arena.core.hotpath`).

Convention: an event that changes any seat's gold carries `"gold": [{"seat": s, "delta": d}]`,
so a client (or a test) can follow every balance from events alone.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Json
from arena.core.hotpath import private_event, public_event

public = public_event
"""`public(kind, **data)`: an event every seat may see."""
private = private_event
"""`private(to, kind, **data)`: an event only seat `to` may see."""


def gold(*changes: tuple[int, int]) -> list[dict[str, Json]]:
    """Return the `gold` field for the given (seat, delta) pairs."""
    return [{"seat": seat, "delta": delta} for seat, delta in changes]
