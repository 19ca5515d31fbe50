"""The Witch (REFERENCE §1.4.1, §1.5, §1.8; classic: §1.10): her turn in two parts.

1. Her own turn: she gathers, then must bewitch a character (`turn.turn_actions` offers
   nothing else while `State.spell` is `Spell.WITCH`); her turn then pauses, with no
   end-of-turn effect.
2. When the bewitched character is called, its holder reveals it, gathers, and his turn
   ends (`Spell.BEWITCHED`): no ability, no automatic gain, but the King's and the
   Patrician's crown. Then the Witch resumes as that character: `current_seat` is her seat,
   `current_char` the bewitched character, so every rule that asks "which character" reads
   the character and every rule that asks "whose hand, gold, city" reads her seat.

If nobody holds the bewitched character, its call finds nobody and she never resumes.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Event

from .actions import Action
from .cards import Character
from .editions import edition_of
from .events import public
from .state import Phase, Spell, State
from .turn import architect_cards, start

_CROWNED = frozenset((Character.KING, Character.PATRICIAN))
"""Bewitched, their holder still takes the crown (§1.5); the Witch does not."""


def bewitch(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Witch names a character (aloud: public) and her turn pauses."""
    character = action.character
    assert character is not None
    state.bewitched, state.witch_seat = character, seat
    events.append(public("bewitched", seat=seat, character=character.wire))
    # paused, not ended: no Poor House, Park or other end-of-turn effect (§1.11.2)
    state.current_seat = state.current_char = state.spell = None
    state.gathered, state.builds_left, state.used = False, 0, []
    state.phase = Phase.CALL
    state.calling += 1


def call_bewitched(state: State, seat: int, character: Character,
                   events: list[Event]) -> None:
    """The bewitched character's holder begins his turn: gather only."""
    state.phase = Phase.TURN
    state.current_seat, state.current_char = seat, character
    state.gathered, state.used, state.pending, state.aside = False, [], None, []
    state.builds_left = state.build_paid = 0
    state.spell = Spell.BEWITCHED
    if character in _CROWNED:
        state.crown = seat
        events.append(public("crown_taken", seat=seat, heir=False))


def resume(state: State, events: list[Event]) -> None:
    """The Witch resumes as the bewitched character, having gathered already: its automatic
    effects are hers (the Merchant's +1, the Architect's +2 cards, the Bishop's protection
    of her city, the Queen's gold by her seat), except the crown its holder took."""
    seat, character = state.witch_seat, state.bewitched
    assert seat is not None and character is not None
    events.append(public("witch_resumed", seat=seat, character=character.wire))
    start(state, seat, character, events, crown=False)
    state.gathered = True
    if character is Character.ARCHITECT and edition_of(state.rules).architect_after_gather:
        architect_cards(state, seat, events)  # classic: "after your action", taken already
