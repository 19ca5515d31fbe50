"""End-of-game scoring and the revised tie-break (REFERENCE §1.7, DECISIONS.md). Pure.

The Haunted Quarter's type is chosen automatically to maximise the owner's score (a
dominated choice with no strategic content). Imports only the standard library and
`arena.core`.
"""

from __future__ import annotations

from arena.core.game import Json, Outcome, Termination, placings_from_keys

from . import cards as C
from .cards import DISTRICTS, TYPE, DistrictType
from .state import State

ALL_TYPES = frozenset(DistrictType)


def breakdown(state: State, seat: int) -> dict[str, int]:
    """Return the score of `seat` item by item, with the `total`."""
    city = state.cities[seat]
    base = sum(DISTRICTS[d].cost for d in city) + len(state.beautified[seat])
    others = [d for d in city if d != C.HAUNTED_QUARTER]
    has_hq = C.HAUNTED_QUARTER in city
    best: tuple[int, int] = (0, 0)
    for counted_as in (ALL_TYPES if has_hq else (DistrictType.UNIQUE,)):
        types = {TYPE[d] for d in others} | ({counted_as} if has_hq else set())
        all_types = 3 if types >= ALL_TYPES else 0
        uniques = sum(1 for d in others if TYPE[d] is DistrictType.UNIQUE)
        uniques += 1 if has_hq and counted_as is DistrictType.UNIQUE else 0
        well = uniques if C.WISHING_WELL in city else 0
        best = max(best, (all_types + well, all_types))
    complete = len(city) >= state.rules["city_size"]
    items = {
        "districts": base,
        "all_types": best[1],
        "first_complete": 4 if state.first_complete == seat else 0,
        "complete": 2 if complete and state.first_complete != seat else 0,
        "dragon_gate": 2 if C.DRAGON_GATE in city else 0,
        "imperial_treasury": state.gold[seat] if C.IMPERIAL_TREASURY in city else 0,
        "map_room": len(state.hands[seat]) if C.MAP_ROOM in city else 0,
        "statue": 5 if C.STATUE in city and state.crown == seat else 0,
        "wishing_well": best[0] - best[1],
    }
    items["total"] = sum(items.values())
    return items


def tiebreak(state: State, seat: int) -> int:
    """Highest rank `seat` revealed (called and not killed) in the last round, else 0."""
    return max((c.rank for s, c in state.revealed if s == seat), default=0)


def outcome(state: State) -> Outcome:
    """Return the outcome of a finished game (scores, placings with the revised tie-break)."""
    items = [breakdown(state, seat) for seat in range(state.players)]
    scores = tuple(item["total"] for item in items)
    keys = [(scores[seat], tiebreak(state, seat)) for seat in range(state.players)]
    details: dict[str, Json] = {
        "rounds": state.round,
        "breakdown": items,
        "tiebreak": [key[1] for key in keys],
        "first_complete": state.first_complete,
    }
    return Outcome(Termination(state.termination or Termination.COMPLETED),
                   placings_from_keys(keys), scores, details)
