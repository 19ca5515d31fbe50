"""Event constructors shared by the rules modules: every module builds its events with
`public` and `private` (one style; they build through `arena.core.hotpath`).

Convention: an event that changes any seat's gold carries `"gold": [{"seat": s, "delta": d}]`,
so a client (or a test) can follow every balance from events alone.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Event, Json
from arena.core.hotpath import make_event


def public(kind: str, **data: Json) -> Event:
    """Return an event every seat may see."""
    return make_event(kind, data)


def private(to: int, kind: str, **data: Json) -> Event:
    """Return an event only seat `to` may see."""
    return make_event(kind, data, frozenset((to,)))


def gold(*changes: tuple[int, int]) -> list[dict[str, Json]]:
    """Return the `gold` field for the given (seat, delta) pairs."""
    return [{"seat": seat, "delta": delta} for seat, delta in changes]
