"""The Museum and the Theater (REFERENCE §1.11.2 rows 17 and 28; DECISIONS.md "Museum",
"Theater"): the two unique districts that hide something.

The Museum keeps hand cards face down under it (`State.museum`): the table learns how many,
only the seat that put a card there learns which (a private event). The Theater's owner may
swap a character card with an opponent at the end of every selection phase (the `theater`
phase): the two seats learn their new cards, the table only who swapped with whom.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Event, Json

from . import cards as C
from .actions import Action, ActionTable, ActionType, Kind, make
from .cards import NAMES
from .events import private, public
from .state import Phase, State

THEATER = ActionTable(ActionType.THEATER, "seat", "character")
DONE = make(ActionType.DONE)
K_THEATER = Kind.THEATER.value


# --- the Museum -------------------------------------------------------------------------------

def fill_museum(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Put one hand card face down under the Museum (once per turn)."""
    card = str(action.district)
    state.used.append("museum")
    state.hands[seat].remove(card)
    state.museum.append(card)
    events.append(public("museum_filled", seat=seat, count=len(state.museum)))
    events.append(private(seat, "own_museum", seat=seat, district=card))


def to_deck(state: State, owner: int, district: str, events: list[Event]) -> None:
    """Put a district that left `owner`'s city (destroyed, sacrificed) at the bottom of the
    deck; a Museum's cards follow it there, face down, in the order they were put under it."""
    state.deck.append(district)
    museum_lost(state, owner, district, events)


def museum_lost(state: State, owner: int, district: str, events: list[Event]) -> None:
    """When `district` is the Museum leaving its city for good, its cards go face down to the
    bottom of the deck (classic: also when the Graveyard's owner buys the Museum back)."""
    if district == C.MUSEUM and state.museum:
        count = len(state.museum)
        state.deck.extend(state.museum)
        state.museum = []
        events.append(public("museum_emptied", seat=owner, count=count))


# --- the Theater ------------------------------------------------------------------------------

def theater_owner(state: State) -> int | None:
    """Return the seat whose city has the Theater, or None (the deck holds one)."""
    for seat, city in enumerate(state.cities):
        if C.THEATER in city:
            return seat
    return None


def after_draft(state: State) -> None:
    """End the selection phase: to the Theater's decision when one stands, else the calls."""
    state.phase = Phase.THEATER if theater_owner(state) is not None else Phase.CALL
    state.calling = 0


def theater_decision(state: State) -> tuple[int, str, tuple[Action, ...], dict[str, Json]]:
    """The Theater owner's decision: keep his cards (`done`, first: the safe default) or give
    one of his character cards to an opponent for one of the opponent's (at random when the
    opponent holds two: 2-3 players)."""
    seat = theater_owner(state)
    assert seat is not None  # the phase is entered only when a Theater stands
    mine = state.chars[seat]
    swaps = tuple(THEATER[target, given] for target in range(state.players) if target != seat
                  for given in mine)
    return seat, K_THEATER, (DONE, *swaps), {"characters": list(map(NAMES.__getitem__, mine))}


def swap(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Give the named character card to the target and take one of his: the seats learn their
    new cards (private events), the table only that they swapped."""
    target, given = int(str(action.seat)), action.character
    assert given is not None
    mine, theirs = state.chars[seat], state.chars[target]
    index = state.rng.randrange(len(theirs)) if len(theirs) > 1 else 0
    taken = theirs[index]
    theirs[index] = given
    mine[mine.index(given)] = taken
    events.append(public("theater_swapped", seat=seat, target=target))
    events.append(private(seat, "own_swap", seat=seat, gave=NAMES[given], received=NAMES[taken],
                          other=target))
    events.append(private(target, "own_swap", seat=target, gave=NAMES[taken],
                          received=NAMES[given], other=seat))
    _to_calls(state)


def decline(state: State, seat: int, events: list[Event]) -> None:
    """`done` in the `theater` decision: no swap this round."""
    events.append(public("theater_declined", seat=seat))
    _to_calls(state)


def _to_calls(state: State) -> None:
    state.phase, state.calling = Phase.CALL, 0


HANDLERS = {ActionType.MUSEUM: fill_museum, ActionType.THEATER: swap}
