"""End-of-game scoring and the tie-breaks of each edition (REFERENCE §1.7, DECISIONS.md). Pure.

The Haunted Quarter's type is chosen automatically to maximise the owner's score (a
dominated choice with no strategic content). Imports only the standard library and
`arena.core`.
"""

from __future__ import annotations

from arena.core.game import Json, Outcome, Termination, placings_from_keys

from . import cards as C
from .cards import CLASSIC_COST, DISTRICTS, TYPE, DistrictType
from .editions import CLASSIC_TIEBREAK, edition_of
from .state import State
from .turn import size

ALL_TYPES = frozenset(DistrictType)
TYPE_ORDER = tuple(DistrictType)  # a fixed order: a set of strings iterates by hash


def breakdown(state: State, seat: int) -> dict[str, int]:
    """Return the score of `seat` item by item, with the `total`: the best over the types the
    Haunted Quarter may count as (it is the engine's choice, DECISIONS.md)."""
    if edition_of(state.rules).tiebreak == CLASSIC_TIEBREAK:
        return classic_breakdown(state, seat)
    city = state.cities[seat]
    has_hq = C.HAUNTED_QUARTER in city
    best: dict[str, int] | None = None
    for counted_as in (TYPE_ORDER if has_hq else (DistrictType.UNIQUE,)):
        items = _items(state, seat, city, counted_as)
        if best is None or items["total"] > best["total"]:
            best = items
    assert best is not None
    return best


def _items(state: State, seat: int, city: list[str], hq_type: DistrictType) -> dict[str, int]:
    types = [hq_type if d == C.HAUNTED_QUARTER else TYPE[d] for d in city]
    beautified = state.beautified[seat]
    uniques = types.count(DistrictType.UNIQUE)
    items = {
        "districts": sum(DISTRICTS[d].cost for d in city) + len(beautified),
        "all_types": 3 if set(types) >= ALL_TYPES else 0,
        "first_complete": 4 if state.first_complete == seat else 0,
        "complete": 2 if size(city) >= state.rules["city_size"]
        and state.first_complete != seat else 0,
        "dragon_gate": 2 if C.DRAGON_GATE in city else 0,
        "imperial_treasury": state.gold[seat] if C.IMPERIAL_TREASURY in city else 0,
        "map_room": len(state.hands[seat]) if C.MAP_ROOM in city else 0,
        "statue": 5 if C.STATUE in city and state.crown == seat else 0,
        "wishing_well": uniques if C.WISHING_WELL in city else 0,
        "basilica": _odd_costs(city, beautified) if C.BASILICA in city else 0,
        "capitol": 3 if C.CAPITOL in city and max(map(types.count, set(types))) >= 3 else 0,
        # a Haunted Quarter counted as another type leaves the Tower the only unique
        "ivory_tower": 5 if C.IVORY_TOWER in city and uniques == 1 else 0,
        "secret_vault": 3 * state.hands[seat].count(C.SECRET_VAULT),
        "museum": len(state.museum) if C.MUSEUM in city else 0,
    }
    items["total"] = sum(items.values())
    return items


def _odd_costs(city: list[str], beautified: list[str]) -> int:
    """Districts whose current cost is odd (a beautified copy costs 1 more)."""
    odd = 0
    for d in set(city):
        copies, raised, cost = city.count(d), beautified.count(d), DISTRICTS[d].cost
        odd += raised if cost % 2 == 0 else copies - raised
    return odd


def classic_breakdown(state: State, seat: int) -> dict[str, int]:
    """The classic score (REFERENCE §1.7, §1.11.3): the University and the Dragon Gate cost 6
    and are worth 8; a Haunted City built in the last round counts only as purple."""
    city = state.cities[seat]
    types = {TYPE[d] for d in city}
    haunted = C.HAUNTED_CITY in city and state.haunted_round != state.round
    complete = len(city) >= state.rules["city_size"]
    items = {
        "districts": sum(CLASSIC_COST[d] for d in city) + len(state.beautified[seat]),
        # a Haunted City stands for the one missing type (it is itself the purple one only
        # when another purple district is there)
        "all_types": 3 if len(types) == 5 or (
            haunted and len(types) == 4 and sum(TYPE[d] is DistrictType.UNIQUE
                                                for d in city) >= 2) else 0,
        "first_complete": 4 if state.first_complete == seat else 0,
        "complete": 2 if complete and state.first_complete != seat else 0,
        "dragon_gate": 2 if C.DRAGON_GATE in city else 0,
        "university": 2 if C.UNIVERSITY in city else 0,
        "museum": len(state.museum) if C.MUSEUM in city else 0,  # Dark City
    }
    items["total"] = sum(items.values())
    return items


def tiebreak(state: State, seat: int) -> int:
    """Highest rank `seat` revealed (called and not killed) in the last round, else 0."""
    return max((c.rank for s, c in state.revealed if s == seat), default=0)


def classic_tiebreak(state: State, seat: int, items: dict[str, int]) -> tuple[int, int]:
    """The 2010 FAQ: district values alone (printed worth, beautification), then gold."""
    return (items["districts"] + items["dragon_gate"] + items["university"],
            state.gold[seat])


def outcome(state: State) -> Outcome:
    """Return the outcome of a finished game (scores, placings with the edition's
    tie-break)."""
    items = [breakdown(state, seat) for seat in range(state.players)]
    scores = tuple(item["total"] for item in items)
    ties: list[Json]
    keys: list[tuple[int, ...]]
    if edition_of(state.rules).tiebreak == CLASSIC_TIEBREAK:
        pairs = [classic_tiebreak(state, seat, items[seat]) for seat in range(state.players)]
        keys = [(scores[seat], *pairs[seat]) for seat in range(state.players)]
        ties = [list(pair) for pair in pairs]
    else:
        keys = [(scores[seat], tiebreak(state, seat)) for seat in range(state.players)]
        ties = [key[1] for key in keys]
    details: dict[str, Json] = {
        "rounds": state.round,
        "breakdown": items,
        "tiebreak": ties,
        "first_complete": state.first_complete,
    }
    return Outcome(Termination(state.termination or Termination.COMPLETED),
                   placings_from_keys(keys), scores, details)


def final_outcome(state: State) -> Outcome:
    """Return the outcome of a finished game: a copy of the one scored when it ended
    (`State.scored`) where there is one, else scored now (a state rebuilt from JSON, or
    set up by hand)."""
    kept = state.scored
    if kept is None:
        return outcome(state)
    # the kept outcome is never handed out: a caller may change its details' lists and dicts
    # (a copy of the shape `outcome` builds: 1-2 us, where scoring again took ~37)
    details = kept.details
    fresh: dict[str, Json] = dict(details)
    fresh["breakdown"] = [dict(items) for items in details["breakdown"]]
    fresh["tiebreak"] = [list(tie) if isinstance(tie, list) else tie
                         for tie in details["tiebreak"]]
    return Outcome(kept.termination, kept.placings, kept.scores, fresh)
