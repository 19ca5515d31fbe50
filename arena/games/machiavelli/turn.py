"""A character's turn: the legal actions (options) and their effects (REFERENCE §1.4, §1.8).

Automatic effects with no choice in them (the King's crown, the Merchant's +1 gold, the
Architect's +2 cards, the Queen's +3 gold, the Bishop's protection) happen when the character
is revealed. Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Event

from . import cards as C
from .actions import Action, ActionType, Kind, make
from .cards import COST, INCOME_TYPE, TYPE, Character, DistrictType
from .events import gold, private, public
from .state import Pending, Phase, State

T = ActionType
GATHER_GOLD, GATHER_CARDS = make(T.GATHER_GOLD), make(T.GATHER_CARDS)
END_TURN, DONE, INCOME = make(T.END_TURN), make(T.DONE), make(T.COLLECT_INCOME)
SMITHY, TAKE_TAX, EXCHANGE = make(T.SMITHY), make(T.TAKE_TAX), make(T.EXCHANGE_CARDS)


def draw(state: State, count: int) -> list[str]:
    """Take up to `count` cards from the top of the deck (fewer if it runs out)."""
    drawn = state.deck[:count]
    del state.deck[:count]
    return drawn


def _distinct(cards: list[str]) -> list[str]:
    return list(dict.fromkeys(cards))


def build_cost(state: State, seat: int, district: str) -> int:
    """Gold to build `district` for `seat` (the Factory discounts other unique districts)."""
    cost = COST[district]
    if (TYPE[district] is DistrictType.UNIQUE and district != C.FACTORY
            and C.FACTORY in state.cities[seat]):
        cost = max(0, cost - 1)
    return cost


def complete(state: State, seat: int) -> bool:
    """Return whether `seat`'s city has reached the completion size."""
    return len(state.cities[seat]) >= int(state.rules["city_size"])


def destroy_price(state: State, seat: int, district: str) -> int:
    """Price for the Warlord to destroy `district` in `seat`'s city (cheapest copy)."""
    plain = state.cities[seat].count(district) > state.beautified[seat].count(district)
    return max(0, COST[district] + (0 if plain else 1) - 1)


def income(state: State, seat: int, character: Character) -> int:
    """Gold from districts of the character's type (School of Magic counts as that type)."""
    kind = INCOME_TYPE[character]
    city = state.cities[seat]
    return sum(1 for d in city if TYPE[d] is kind) + (1 if C.SCHOOL_OF_MAGIC in city else 0)


def start(state: State, seat: int, character: Character, events: list[Event]) -> None:
    """Begin `character`'s turn for `seat` and apply its automatic effects."""
    state.phase = Phase.TURN
    state.current_seat, state.current_char = seat, character
    state.gathered, state.used, state.pending, state.aside = False, [], None, []
    state.builds_left = 3 if character is Character.ARCHITECT else 1
    if character is Character.KING:
        state.crown = seat
        events.append(public("crown_taken", seat=seat, heir=False))
    elif character is Character.BISHOP:
        state.bishop_seat = seat
    elif character is Character.MERCHANT:
        _gain(state, seat, 1, character, events)
    elif character is Character.ARCHITECT:
        drawn = draw(state, 2)
        state.hands[seat].extend(drawn)
        events.append(public("bonus_cards", seat=seat, character=character.wire,
                             count=len(drawn)))
        events.append(private(seat, "drew_cards", seat=seat, cards=drawn))
    elif character is Character.QUEEN:
        king = next((s for s, c in state.revealed if c is Character.KING), None)
        if king is not None and neighbours(state, seat, king):
            _gain(state, seat, 3, character, events)


def neighbours(state: State, a: int, b: int) -> bool:
    """Return whether seats `a` and `b` sit next to each other."""
    return a != b and (a - b) % state.players in (1, state.players - 1)


def _gain(state: State, seat: int, amount: int, character: Character,
          events: list[Event]) -> None:
    state.gold[seat] += amount
    events.append(public("bonus_gold", seat=seat, character=character.wire, amount=amount,
                         gold=gold((seat, amount))))


def legal(state: State) -> tuple[str, list[Action]]:
    """Return the decision kind and the legal actions of the current turn, safest first."""
    seat = state.current_seat
    assert seat is not None
    hand = state.hands[seat]
    if state.pending == Pending.KEEP:
        return Kind.KEEP_CARD, [make(T.KEEP_CARD, district=d) for d in _distinct(state.aside)]
    if state.pending == Pending.EXCHANGE:
        return Kind.EXCHANGE_CARDS, [DONE, *(make(T.DISCARD_CARD, district=d)
                                             for d in _distinct(hand))]
    if state.pending == Pending.DEN:
        due = build_cost(state, seat, C.THIEVES_DEN) - len(state.aside)
        done = [DONE] if state.gold[seat] >= due else []
        pays = [] if due <= 0 else [make(T.PAY_CARD, district=d)
                                    for d in _distinct(hand) if d != C.THIEVES_DEN]
        return Kind.THIEVES_DEN, done + pays
    return Kind.TURN, _turn_actions(state, seat)


def _turn_actions(state: State, seat: int) -> list[Action]:
    character = state.current_char
    assert character is not None
    used, hand, city, purse = state.used, state.hands[seat], state.cities[seat], state.gold[seat]
    actions = [GATHER_GOLD, GATHER_CARDS] if not state.gathered else []
    if character in INCOME_TYPE and "income" not in used:
        actions.append(INCOME)
    if state.gathered:
        actions.append(END_TURN)
    if "ability" not in used:
        actions.extend(_ability_actions(state, seat, character))
    if character is Character.ARTIST and used.count("beautify") < 2 and purse >= 1:
        done = state.beautified[seat]
        actions.extend(make(T.BEAUTIFY, district=d) for d in _distinct(city)
                       if city.count(d) > done.count(d))
    if state.gathered and state.builds_left > 0:
        actions.extend(_build_actions(state, seat))
    if C.LABORATORY in city and "laboratory" not in used:
        actions.extend(make(T.LABORATORY, district=d) for d in _distinct(hand))
    if C.SMITHY in city and "smithy" not in used and purse >= 2:
        actions.append(SMITHY)
    return actions


def _ability_actions(state: State, seat: int, character: Character) -> list[Action]:
    if character is Character.ASSASSIN:
        return [make(T.KILL, character=c) for c in state.cast if c is not Character.ASSASSIN]
    if character is Character.THIEF:
        return [make(T.ROB, character=c) for c in state.cast
                if c.rank > 2 and c is not state.killed]
    if character is Character.MAGICIAN:
        swaps = [make(T.SWAP_HANDS, seat=s) for s in range(state.players) if s != seat]
        return swaps + ([EXCHANGE] if state.hands[seat] else [])
    if character is Character.WARLORD:
        return _destroy_actions(state, seat)
    if character is Character.TAX_COLLECTOR and state.tax_token > 0:
        return [TAKE_TAX]
    return []


def _destroy_actions(state: State, seat: int) -> list[Action]:
    actions = []
    purse = state.gold[seat]
    for target in range(state.players):
        if target == state.bishop_seat or complete(state, target):
            continue
        for d in _distinct(state.cities[target]):
            if d != C.KEEP and destroy_price(state, target, d) <= purse:
                actions.append(make(T.DESTROY, seat=target, district=d))
    return actions


def can_place(state: State, seat: int, district: str) -> bool:
    """Return whether `district` may join `seat`'s city (no duplicates without the Quarry)."""
    city = state.cities[seat]
    return district not in city or C.QUARRY in city


def _build_actions(state: State, seat: int) -> list[Action]:
    hand, purse = state.hands[seat], state.gold[seat]
    actions = []
    for d in _distinct(hand):
        if not can_place(state, seat, d):
            continue
        cost = build_cost(state, seat, d)
        if cost <= purse:
            actions.append(make(T.BUILD, district=d))
        if d == C.THIEVES_DEN and len(hand) >= 2 and purse + len(hand) - 1 >= cost:
            actions.append(make(T.PAY_WITH_CARDS, district=d))
    return actions


def why_illegal(state: State, seat: int, action: Action) -> str:
    """Explain, as precisely as cheaply possible, why a turn action is not legal now."""
    hand = state.hands[seat]
    d = action.district
    if action.type in (T.BUILD, T.PAY_WITH_CARDS) and d is not None:
        if not state.gathered:
            return "you must gather (gold or cards) before building"
        if state.builds_left <= 0:
            return "no builds left this turn"
        if d not in hand:
            return f"{d} is not in your hand"
        if not can_place(state, seat, d):
            return f"{d} is already in your city (no duplicates without the quarry)"
        return f"{d} costs {build_cost(state, seat, d)} gold, you have {state.gold[seat]}"
    if action.type is T.END_TURN and not state.gathered:
        return "you must gather (gold or cards) before ending the turn"
    if action.type in (T.GATHER_GOLD, T.GATHER_CARDS) and state.gathered:
        return "you have already gathered this turn"
    if action.type is T.ROB and action.character is not None:
        return "the thief may not rob a rank-1 character, himself or the killed character"
    if action.type is T.DESTROY:
        return ("not a legal target: completed cities, the keep and a living bishop's "
                "districts are immune, and the price (cost - 1) must be affordable")
    return "not allowed for your character now, or already used this turn"
