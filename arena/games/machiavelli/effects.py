"""The effects of turn actions, applied after validation (never half-applied: no check here
can fail). Cards put back, discarded, paid or destroyed go to the bottom of the deck.

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.core.game import Event

from . import cards as C
from . import markers, powers, venues, witch
from .actions import Action, ActionType, make
from .cards import INCOME_CARDS, NAMES, Character
from .editions import EDITIONS, edition_of
from .events import GATHERED_CARDS, KEPT_CARD, TURN_ENDED, gold, private, public
from .state import Pending, Phase, Spell, State
from .turn import (
    architect_cards,
    build_cost,
    destroy_price,
    draw,
    free_of_limit,
    income,
    pay_tax,
    size,
)

T = ActionType
# module-level copies of class constants (a global lookup is cached; a class attribute is not)
_KEEP, _CALL, _TAX_COLLECTOR = Pending.KEEP, Phase.CALL, Character.TAX_COLLECTOR
_GRAVEYARD, _ARCHITECT = Pending.GRAVEYARD, Character.ARCHITECT
_BEWITCHED, _ALCHEMIST = Spell.BEWITCHED, Character.ALCHEMIST
_DONE = make(T.DONE)


def _gather_gold(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state.gathered = True
    amount = 3 if C.GOLD_MINE in state.cities[seat] else 2  # the Gold Mine: +1 when gathering
    state.gold[seat] += amount
    events.append(public("gathered_gold", seat=seat, amount=amount, gold=gold((seat, amount))))
    if state.current_char is _ARCHITECT or state.spell is not None:
        _gathered(state, seat, events)


def _gathered(state: State, seat: int, events: list[Event]) -> None:
    """A gather is complete (a kept card included): the bewitched holder's turn ends and
    the Witch resumes; the classic Architect draws his +2 cards."""
    spell = state.spell
    if spell == _BEWITCHED:
        _release(state, seat, events)
    elif spell == Spell.THREATENED:
        markers.demand(state, seat, events)
    elif spell is None and edition_of(state.rules).architect_after_gather:
        architect_cards(state, seat, events)


def _release(state: State, holder: int, events: list[Event]) -> None:
    """The bewitched holder's turn ends (his own end-of-turn districts act: they are not
    the character's abilities; DECISIONS.md "Witch"), and the Witch resumes."""
    character = state.current_char
    assert character is not None
    city = state.cities[holder]
    if C.POOR_HOUSE in city or C.PARK in city:
        _end_of_turn_districts(state, holder, events)
    events.append(TURN_ENDED[holder, NAMES[character]])
    witch.resume(state, events)


def _gather_cards(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state.gathered = True
    deck, city = state.deck, state.cities[seat]
    count = 3 if C.OBSERVATORY in city else 2  # the Observatory draws 3 (keep 1)
    drawn = deck[:count]
    del deck[:count]
    events.append(GATHERED_CARDS[seat, len(drawn)])
    events.append(private(seat, "drew_cards", seat=seat, cards=drawn))
    keep = 1
    if C.LIBRARY in city:  # both cards, or with the Observatory the edition's number of 3
        keep = EDITIONS[state.rules["edition"]].library_observatory_keep if count == 3 else 2
    if len(drawn) > keep:
        state.pending, state.aside = _KEEP, drawn
    else:
        state.hands[seat].extend(drawn)
        if state.current_char is _ARCHITECT or state.spell is not None:
            _gathered(state, seat, events)


def _keep_card(state: State, seat: int, action: Action, events: list[Event]) -> None:
    if state.pending == _GRAVEYARD:
        _graveyard(state, seat, True, events)
        return
    card = str(action.district)
    state.aside.remove(card)
    state.hands[seat].append(card)
    if len(state.aside) >= 2 and C.LIBRARY in state.cities[seat]:
        # classic Library with the Observatory: keep 2 of the 3 drawn, one at a time
        events.append(private(seat, "own_kept", seat=seat, district=card, returned=[]))
        return
    returned, state.aside, studied, state.pending = state.aside, [], state.pending, None
    if studied == Pending.STUDY:
        powers.shuffle_back(state, returned)  # the Scholar shuffles his six back
    else:
        state.deck.extend(returned)
    events.append(KEPT_CARD[seat, len(returned)])
    events.append(private(seat, "own_kept", seat=seat, district=card, returned=returned))
    if state.current_char is _ARCHITECT or state.spell is not None:
        _gathered(state, seat, events)


def _build(state: State, seat: int, action: Action, events: list[Event]) -> None:
    district = str(action.district)
    cost = build_cost(state, seat, district)
    if state.pending == Pending.WIZARD_BUILD:
        # the Wizard builds the card he took at once: it does not count against the limit
        state.aside, state.pending = [], None
        state.builds_left += 1
    else:
        state.hands[seat].remove(district)
    _place(state, seat, district, cost, [], events)


def _place(state: State, seat: int, district: str, paid: int, cards: list[str],
           events: list[Event], before: int | None = None) -> None:
    """Build `district` in `seat`'s city for `paid` gold (and `cards`); `before` is the city's
    size before a build that also took a district away (Framework, Necropolis)."""
    purse, city = state.gold, state.cities[seat]
    if before is None:
        before = size(city)
    purse[seat] -= paid
    state.build_paid += paid
    city.append(district)
    if not free_of_limit(state.current_char, district):
        state.builds_left -= 1
    if district == C.HAUNTED_CITY:
        state.haunted_round = state.round
    # paid cards go face down to the deck: the table learns how many, only the payer which
    events.append(public("built", seat=seat, district=district, cost=paid,
                         cards_paid=len(cards), gold=gold((seat, -paid))))
    if cards:
        events.append(private(seat, "own_paid", seat=seat, district=district, cards=cards))
    if state.warrants and markers.held_for_warrant(state, seat, paid, len(cards)):
        markers.hold(state, district, paid, before)  # the tax and completion wait for it
        return
    if _TAX_COLLECTOR in state.cast:
        pay_tax(state, seat, events, exempt=state.current_char is _TAX_COLLECTOR)
    powers.grew(state, seat, before, events)


def _framework(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Build a hand card free by destroying the Framework (to the bottom of the deck)."""
    district, before = str(action.district), size(state.cities[seat])
    powers.remove_from_city(state, seat, C.FRAMEWORK)
    state.deck.append(C.FRAMEWORK)
    state.hands[seat].remove(district)
    events.append(public("framework_used", seat=seat, district=district))
    _place(state, seat, district, 0, [], events, before)


def _necropolis(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Build the Necropolis free by destroying one of the seat's own districts."""
    sacrificed, before = str(action.district), size(state.cities[seat])
    powers.remove_from_city(state, seat, sacrificed)
    state.hands[seat].remove(C.NECROPOLIS)
    events.append(public("necropolis_sacrifice", seat=seat, district=sacrificed))
    venues.to_deck(state, seat, sacrificed, events)
    _place(state, seat, C.NECROPOLIS, 0, [], events, before)


def _cardinal_build(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Cardinal builds with gold taken from a player, then gives him as many cards."""
    cost = powers.cardinal_take(state, seat, action, events)
    state.hands[seat].remove(str(action.district))
    _place(state, seat, str(action.district), cost, [], events)
    if state.pending is None:  # else the Magistrate decides first (then `give_card`)
        state.pending = Pending.GIVE


def _pay_with_cards(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state.pending, state.aside = Pending.DEN, []


def _pay_card(state: State, seat: int, action: Action, events: list[Event]) -> None:
    card = str(action.district)
    state.hands[seat].remove(card)
    state.aside.append(card)


def _done(state: State, seat: int, action: Action, events: list[Event]) -> None:
    if state.phase == Phase.THEATER:
        venues.decline(state, seat, events)
        return
    other = markers.DONE_HANDLERS.get(state.pending)
    if other is not None:
        other(state, seat, events)
        return
    if state.pending == _GRAVEYARD:
        _graveyard(state, seat, False, events)
        return
    if state.pending == Pending.WIZARD_BUILD:
        powers.keep_taken(state, seat)
        return
    set_aside, state.aside = state.aside, []
    state.deck.extend(set_aside)
    if state.pending == Pending.DEN:
        state.pending = None
        state.hands[seat].remove(C.THIEVES_DEN)
        due = build_cost(state, seat, C.THIEVES_DEN) - len(set_aside)
        _place(state, seat, C.THIEVES_DEN, max(0, due), set_aside, events)
        return
    state.pending = None
    drawn = draw(state, len(set_aside))
    state.hands[seat].extend(drawn)
    events.append(public("cards_exchanged", seat=seat, discarded=len(set_aside),
                         drawn=len(drawn)))
    events.append(private(seat, "drew_cards", seat=seat, cards=drawn))


def _income(state: State, seat: int, action: Action, events: list[Event]) -> None:
    character = state.current_char
    assert character is not None
    amount = income(state, seat, character)
    state.used.append("income")
    if character in INCOME_CARDS:
        drawn = draw(state, amount)
        state.hands[seat].extend(drawn)
        events.append(public("income_cards", seat=seat, character=NAMES[character],
                             count=len(drawn)))
        events.append(private(seat, "drew_cards", seat=seat, cards=drawn))
        return
    state.gold[seat] += amount
    events.append(public("income", seat=seat, character=NAMES[character], amount=amount,
                         gold=gold((seat, amount))))


def _kill(state: State, seat: int, action: Action, events: list[Event]) -> None:
    assert action.character is not None
    state.used.append("ability")
    state.killed = action.character
    events.append(public("character_killed", seat=seat, character=action.character.wire))


def _rob(state: State, seat: int, action: Action, events: list[Event]) -> None:
    assert action.character is not None
    state.used.append("ability")
    state.robbed, state.thief_seat = action.character, seat
    events.append(public("character_robbed", seat=seat, character=action.character.wire))


def _swap(state: State, seat: int, action: Action, events: list[Event]) -> None:
    target = int(str(action.seat))
    state.used.append("ability")
    mine, theirs = state.hands[seat], state.hands[target]
    state.hands[seat], state.hands[target] = theirs, mine
    events.append(public("hands_swapped", seat=seat, target=target, gave=len(mine),
                         received=len(theirs)))
    events.append(private(seat, "hand_received", seat=seat, cards=list(theirs)))
    events.append(private(target, "hand_received", seat=target, cards=list(mine)))


def _exchange(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state.used.append("ability")
    state.pending, state.aside = Pending.EXCHANGE, []


def _discard_card(state: State, seat: int, action: Action, events: list[Event]) -> None:
    card = str(action.district)
    state.hands[seat].remove(card)
    state.aside.append(card)


def _destroy(state: State, seat: int, action: Action, events: list[Event]) -> None:
    target, district = int(str(action.seat)), str(action.district)
    price = destroy_price(state, target, district)
    state.used.append("ability")
    state.gold[seat] -= price
    state.cities[target].remove(district)
    beautified = state.beautified[target]
    if beautified.count(district) > state.cities[target].count(district):
        beautified.remove(district)  # the destroyed copy was the beautified one
    events.append(public("destroyed", seat=seat, target=target, district=district,
                         price=price, gold=gold((seat, -price))))
    if target != seat and state.gold[target] >= 1 and C.GRAVEYARD in state.cities[target]:
        # classic Graveyard: its owner may buy the card back (`_graveyard` ends the turn); a
        # Dark City Museum's cards go to the deck bottom either way
        venues.museum_lost(state, target, district, events)
        state.pending, state.aside = _GRAVEYARD, [district]
        return
    venues.to_deck(state, target, district, events)
    if EDITIONS[state.rules["edition"]].destroy_at_end:
        _end_turn(state, seat, _DONE, events)


def _graveyard(state: State, owner: int, buy: bool, events: list[Event]) -> None:
    """The Graveyard's owner pays 1 gold to take the destroyed card into hand, or lets it go
    to the bottom of the deck; then the (classic) Warlord's turn ends."""
    card, state.aside, state.pending = state.aside[0], [], None
    if buy:
        state.gold[owner] -= 1
        state.hands[owner].append(card)
        events.append(public("graveyard_used", seat=owner, district=card,
                             gold=gold((owner, -1))))
    else:
        state.deck.append(card)
        events.append(public("graveyard_declined", seat=owner, district=card))
    warlord = state.current_seat
    assert warlord is not None
    if EDITIONS[state.rules["edition"]].destroy_at_end:
        _end_turn(state, warlord, _DONE, events)


def _beautify(state: State, seat: int, action: Action, events: list[Event]) -> None:
    district = str(action.district)
    state.used.append("beautify")
    state.gold[seat] -= 1
    state.beautified[seat].append(district)
    events.append(public("beautified", seat=seat, district=district, gold=gold((seat, -1))))


def _take_tax(state: State, seat: int, action: Action, events: list[Event]) -> None:
    amount, state.tax_token = state.tax_token, 0
    state.used.append("ability")
    state.gold[seat] += amount
    events.append(public("tax_taken", seat=seat, amount=amount, gold=gold((seat, amount))))


def _laboratory(state: State, seat: int, action: Action, events: list[Event]) -> None:
    card = str(action.district)
    state.used.append("laboratory")
    state.hands[seat].remove(card)
    state.deck.append(card)
    amount = EDITIONS[state.rules["edition"]].laboratory_gold
    state.gold[seat] += amount
    events.append(public("laboratory_used", seat=seat, amount=amount, gold=gold((seat, amount))))


def _smithy(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state.used.append("smithy")
    state.gold[seat] -= 2
    drawn = draw(state, 3)
    state.hands[seat].extend(drawn)
    events.append(public("smithy_used", seat=seat, count=len(drawn), gold=gold((seat, -2))))
    events.append(private(seat, "drew_cards", seat=seat, cards=drawn))


def _end_turn(state: State, seat: int, action: Action, events: list[Event]) -> None:
    character = state.current_char
    city = state.cities[seat]
    if C.POOR_HOUSE in city or C.PARK in city:
        _end_of_turn_districts(state, seat, events)
    if character is _ALCHEMIST and state.build_paid:
        refund = state.build_paid  # after the Poor House (§1.4.1)
        state.gold[seat] += refund
        events.append(public("refund", seat=seat, character="alchemist", amount=refund,
                             gold=gold((seat, refund))))
    events.append(TURN_ENDED[seat, NAMES[character] if character else None])
    state.current_seat = state.current_char = None
    state.gathered, state.builds_left, state.used = False, 0, []
    state.phase = _CALL
    state.calling += 1


def _end_of_turn_districts(state: State, seat: int, events: list[Event]) -> None:
    """The Poor House (no gold: +1) then the Park (no cards: draw 2), REFERENCE §1.4.1."""
    city = state.cities[seat]
    if C.POOR_HOUSE in city and state.gold[seat] == 0:
        state.gold[seat] = 1
        events.append(public("poor_house", seat=seat, amount=1, gold=gold((seat, 1))))
    if C.PARK in city and not state.hands[seat]:
        drawn = draw(state, 2)
        state.hands[seat].extend(drawn)
        events.append(public("park", seat=seat, count=len(drawn)))
        events.append(private(seat, "drew_cards", seat=seat, cards=drawn))


Handler = Callable[[State, int, Action, list[Event]], None]
HANDLERS: dict[ActionType, Handler] = {  # by action type; `rules.apply` calls them directly
    T.GATHER_GOLD: _gather_gold, T.GATHER_CARDS: _gather_cards, T.KEEP_CARD: _keep_card,
    T.BUILD: _build, T.PAY_WITH_CARDS: _pay_with_cards, T.PAY_CARD: _pay_card, T.DONE: _done,
    T.COLLECT_INCOME: _income, T.KILL: _kill, T.ROB: _rob, T.SWAP_HANDS: _swap,
    T.EXCHANGE_CARDS: _exchange, T.DISCARD_CARD: _discard_card, T.DESTROY: _destroy,
    T.BEAUTIFY: _beautify, T.TAKE_TAX: _take_tax, T.LABORATORY: _laboratory,
    T.SMITHY: _smithy, T.END_TURN: _end_turn, T.FRAMEWORK: _framework,
    T.NECROPOLIS: _necropolis, T.CARDINAL_BUILD: _cardinal_build, T.BEWITCH: witch.bewitch,
    **powers.HANDLERS, **markers.HANDLERS,
    **venues.HANDLERS,
}
