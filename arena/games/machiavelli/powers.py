"""The abilities of the characters added in issue 12 (REFERENCE §1.8): their options and
their effects. `turn.ABILITIES` and `effects.HANDLERS` take them in at import, so the hot
path looks them up exactly as it does the base characters'.

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Event

from . import cards as C
from .actions import Action, ActionTable, ActionType, make
from .cards import COST, Character
from .events import gold, private, public
from .state import Pending, State
from .turn import ABILITIES, draw, size

T = ActionType
NAVIGATE_GOLD, NAVIGATE_CARDS = make(T.NAVIGATE, resource="gold"), make(T.NAVIGATE,
                                                                          resource="cards")
STUDY = make(T.STUDY)
SEIZE = ActionTable(T.SEIZE, "seat", "district")
NAVIGATOR_GAIN = 4
"""The Navigator's 4 gold or 4 cards."""
SCHOLAR_DRAW = 7
"""Cards the Scholar draws to keep one."""
SEIZE_LIMIT = 3
"""The Marshal seizes only districts costing this much or less."""


def current_cost(state: State, seat: int, district: str) -> int:
    """Cost of the cheapest copy of `district` in `seat`'s city (a beautified copy +1)."""
    city = state.cities[seat]
    plain = city.count(district) > state.beautified[seat].count(district)
    return COST[district] + (0 if plain else 1)


def _navigate(state: State, seat: int) -> tuple[Action, ...]:
    return (NAVIGATE_GOLD, NAVIGATE_CARDS)


def _study(state: State, seat: int) -> tuple[Action, ...]:
    return (STUDY,)


def _seizures(state: State, seat: int) -> tuple[Action, ...]:
    """The Marshal's targets: another city that is not complete nor the living Bishop's, a
    district costing 3 or less (not the Keep, nothing his city already has), affordable."""
    actions = []
    purse, limit, mine = state.gold[seat], int(state.rules["city_size"]), state.cities[seat]
    for target in range(state.players):
        city = state.cities[target]
        if target == seat or target == state.bishop_seat or size(city) >= limit:
            continue
        wall = 1 if C.GREAT_WALL in city else 0
        for d in dict.fromkeys(city):
            if d == C.KEEP or d in mine:
                continue
            cost = current_cost(state, target, d)
            if cost <= SEIZE_LIMIT and cost + wall <= purse:
                actions.append(SEIZE[target, d])
    return tuple(actions)


def navigate(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Navigator: 4 gold or 4 cards, whatever he gathered."""
    state.used.append("ability")
    if action.resource == "gold":
        state.gold[seat] += NAVIGATOR_GAIN
        events.append(public("bonus_gold", seat=seat, character="navigator",
                             amount=NAVIGATOR_GAIN, gold=gold((seat, NAVIGATOR_GAIN))))
        return
    drawn = draw(state, NAVIGATOR_GAIN)
    state.hands[seat].extend(drawn)
    events.append(public("bonus_cards", seat=seat, character="navigator", count=len(drawn)))
    events.append(private(seat, "drew_cards", seat=seat, cards=drawn))


def study(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Scholar draws 7 and keeps 1 (`keep_card`); the rest are shuffled into the deck."""
    state.used.append("ability")
    drawn = draw(state, SCHOLAR_DRAW)
    events.append(public("studied", seat=seat, count=len(drawn)))
    events.append(private(seat, "drew_cards", seat=seat, cards=drawn))
    if drawn:
        state.pending, state.aside = Pending.STUDY, drawn


def seize(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Marshal takes a district into his city, paying its owner its cost (+1 for the
    Great Wall, also to the owner); a beautified copy keeps its gold."""
    target, district = int(str(action.seat)), str(action.district)
    city = state.cities[target]
    beautified = city.count(district) <= state.beautified[target].count(district)
    price = current_cost(state, target, district) + (1 if C.GREAT_WALL in city else 0)
    state.used.append("ability")
    state.gold[seat] -= price
    state.gold[target] += price
    city.remove(district)
    state.cities[seat].append(district)
    if beautified:
        state.beautified[target].remove(district)
        state.beautified[seat].append(district)
    events.append(public("seized", seat=seat, target=target, district=district, price=price,
                         gold=gold((seat, -price), (target, price))))
    grew(state, seat, district, events)


def grew(state: State, seat: int, district: str, events: list[Event]) -> None:
    """Record a city's completion when `district`, just added, took it over the threshold
    (the Monument counts 2)."""
    grown, limit = size(state.cities[seat]), state.rules["city_size"]
    if grown >= limit > grown - (2 if district == C.MONUMENT else 1):
        first = state.first_complete is None
        if first:
            state.first_complete = seat
        events.append(public("city_completed", seat=seat, first=first))


def shuffle_back(state: State, cards: list[str]) -> None:
    """Shuffle `cards` into the deck (the Scholar's unkept cards)."""
    state.deck.extend(cards)
    state.rng.shuffle(state.deck)


ABILITIES.update({Character.NAVIGATOR: _navigate, Character.SCHOLAR: _study,
                  Character.MARSHAL: _seizures})
HANDLERS = {T.NAVIGATE: navigate, T.STUDY: study, T.SEIZE: seize}
