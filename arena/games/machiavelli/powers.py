"""The abilities of the characters added in issue 12 (REFERENCE §1.8): their options and
their effects. `turn.ABILITIES` and `effects.HANDLERS` take them in at import, so the hot
path looks them up exactly as it does the base characters'.

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from collections.abc import Iterator

from arena.core.game import Event, Json
from arena.core.rng import shuffle

from . import cards as C
from . import venues
from .actions import Action, ActionTable, ActionType, Kind, make
from .cards import COST, TYPE, Character, DistrictType
from .editions import EDITIONS
from .events import gold, private, public
from .state import Pending, State
from .turn import (
    ABILITIES,
    BUILD,
    CARDINAL_OPTIONS,
    CITY_OPTIONS,
    DONE,
    INCOME_OPTIONS,
    PENDING,
    build_cost,
    can_place,
    draw,
    income,
    size,
)

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
    if not state.gathered and EDITIONS[state.rules["edition"]].navigator_after_action:
        return ()  # classic: after his action
    return (NAVIGATE_GOLD, NAVIGATE_CARDS)


def _study(state: State, seat: int) -> tuple[Action, ...]:
    return (STUDY,)


def _seizures(state: State, seat: int) -> tuple[Action, ...]:
    """The Marshal's targets: another city that is not complete nor the living Bishop's, a
    district costing 3 or less (not the Keep, nothing his city already has), affordable."""
    purse = state.gold[seat]
    return tuple(SEIZE[target, d] for target, d, cost, wall in _takeable(state, seat)
                 if cost <= SEIZE_LIMIT and cost + wall <= purse)


def _takeable(state: State, seat: int) -> Iterator[tuple[int, str, int, int]]:
    """(target, district, its cost, the target's Great Wall surcharge) for every district
    the Marshal or the Diplomat may take: in another incomplete city, not the living
    Bishop's, not the Keep, nothing `seat`'s city already has."""
    limit, mine = int(state.rules["city_size"]), state.cities[seat]
    for target in range(state.players):
        city = state.cities[target]
        if target == seat or target == state.bishop_seat or size(city) >= limit:
            continue
        wall = 1 if C.GREAT_WALL in city else 0
        for d in dict.fromkeys(city):
            if d != C.KEEP and d not in mine:
                yield target, d, current_cost(state, target, d), wall


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
    before = size(state.cities[seat])
    state.cities[seat].append(district)
    if beautified:
        state.beautified[target].remove(district)
        state.beautified[seat].append(district)
    events.append(public("seized", seat=seat, target=target, district=district, price=price,
                         gold=gold((seat, -price), (target, price))))
    grew(state, seat, before, events)


def grew(state: State, seat: int, before: int, events: list[Event]) -> None:
    """Record a city's completion when a change took its size (the Monument counts 2) from
    `before` to the threshold or beyond."""
    grown, limit = size(state.cities[seat]), state.rules["city_size"]
    if grown >= limit > before:
        first = state.first_complete is None
        if first:
            state.first_complete = seat
        events.append(public("city_completed", seat=seat, first=first))


def shuffle_back(state: State, cards: list[str]) -> None:
    """Shuffle `cards` into the deck (the Scholar's unkept cards)."""
    state.deck.extend(cards)
    shuffle(state.rng, state.deck)


# --- rank 2 and 3: the Spy, the Wizard and the Seer look at or take hidden cards -------------

SPY = ActionTable(T.SPY, "seat", "district_type")
LOOK, TAKE_CARD = ActionTable(T.LOOK, "seat"), ActionTable(T.TAKE_CARD, "district")
GIVE_CARD, FORESEE = ActionTable(T.GIVE_CARD, "seat", "district"), make(T.FORESEE)
TYPES = tuple(t.value for t in DistrictType)


def _spies(state: State, seat: int) -> tuple[Action, ...]:
    return tuple(SPY[target, kind] for target in range(state.players) if target != seat
                 for kind in TYPES)


def spy(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Spy looks at a hand (privately) and, per card of the named type, takes 1 gold from
    its owner (while there is any) and draws 1 card."""
    target, kind = int(str(action.seat)), DistrictType(str(action.district_type))
    hand = state.hands[target]
    matches = sum(1 for d in hand if TYPE[d] is kind)
    taken = min(matches, state.gold[target])
    state.used.append("ability")
    state.gold[target] -= taken
    state.gold[seat] += taken
    events.append(private(seat, "hand_seen", seat=seat, target=target, cards=list(hand)))
    drawn = draw(state, matches)
    state.hands[seat].extend(drawn)
    # the table sees the gold and the cards change hands, so the number of matches is public
    events.append(public("spied", seat=seat, target=target, district_type=kind.value,
                         matches=matches, drawn=len(drawn),
                         gold=gold((target, -taken), (seat, taken)) if taken else []))
    events.append(private(seat, "drew_cards", seat=seat, cards=drawn))


def _looks(state: State, seat: int) -> tuple[Action, ...]:
    return tuple(LOOK[target] for target in range(state.players)
                 if target != seat and state.hands[target])


def look(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Wizard looks at another hand: a `take_card` decision over it follows."""
    state.used.append("ability")
    state.target, state.pending = int(str(action.seat)), Pending.TAKE
    events.append(public("hand_looked_at", seat=seat, target=state.target))


def _take_options(state: State, seat: int) -> tuple[str, tuple[Action, ...]]:
    assert state.target is not None
    return Kind.TAKE_CARD.value, tuple(map(TAKE_CARD.__getitem__,
                                           dict.fromkeys(state.hands[state.target])))


def _take_context(state: State, seat: int) -> dict[str, Json]:
    assert state.target is not None
    return {"target": state.target, "hand": list(state.hands[state.target])}


def take_card(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Wizard takes the card (set aside): next he builds it at once or keeps it."""
    target, card = state.target, str(action.district)
    assert target is not None
    state.hands[target].remove(card)
    state.aside, state.target, state.pending = [card], None, Pending.WIZARD_BUILD
    events.append(public("card_taken", seat=seat, target=target))
    events.append(private(target, "card_lost", seat=target, district=card, by=seat))


def _wizard_build_options(state: State, seat: int) -> tuple[str, tuple[Action, ...]]:
    card = state.aside[0]
    buildable = (can_place(state, seat, card) and state.current_char is not Character.NAVIGATOR
                 and build_cost(state, seat, card) <= state.gold[seat])
    return Kind.WIZARD_BUILD.value, (DONE, BUILD[card]) if buildable else (DONE,)


def _wizard_build_context(state: State, seat: int) -> dict[str, Json]:
    return {"taken": state.aside[0]}


def keep_taken(state: State, seat: int) -> None:
    """`done` in `wizard_build`: the taken card joins the Wizard's hand."""
    state.hands[seat].extend(state.aside)
    state.aside, state.pending = [], None


def _foresee(state: State, seat: int) -> tuple[Action, ...]:
    return (FORESEE,) if any(state.hands[s] for s in range(state.players) if s != seat) else ()


def foresee(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Seer takes a random card from every other non-empty hand, then owes each of those
    players one card of his choice (`give_card` decisions, in seat order after his)."""
    state.used.append("ability")
    owed = []
    for offset in range(1, state.players):
        victim = (seat + offset) % state.players
        hand = state.hands[victim]
        if not hand:
            continue
        card = hand.pop(state.rng.randrange(len(hand)))
        state.hands[seat].append(card)
        owed.append(victim)
        events.append(private(victim, "card_lost", seat=victim, district=card, by=seat))
        events.append(private(seat, "card_gained", seat=seat, district=card, target=victim))
    state.owed = owed
    events.append(public("cards_foreseen", seat=seat, targets=list(owed)))
    if owed:
        state.pending = Pending.GIVE


def _give_options(state: State, seat: int) -> tuple[str, tuple[Action, ...]]:
    target = state.owed[0]
    return Kind.GIVE_CARD.value, tuple(GIVE_CARD[target, d]
                                       for d in dict.fromkeys(state.hands[seat]))


def _give_context(state: State, seat: int) -> dict[str, Json]:
    return {"owed": list(state.owed)}


def give_card(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """The Seer gives one card to the next player he took from."""
    target, card = state.owed.pop(0), str(action.district)
    state.hands[seat].remove(card)
    state.hands[target].append(card)
    events.append(public("card_given", seat=seat, target=target))
    events.append(private(target, "card_received", seat=target, district=card, by=seat))
    if not state.owed:
        state.pending = None


# --- the Diplomat, and the districts that destroy: Armory, Framework, Necropolis -------------

ARMORY = ActionTable(T.ARMORY, "seat", "district")
FRAMEWORK, NECROPOLIS = ActionTable(T.FRAMEWORK, "district"), ActionTable(T.NECROPOLIS,
                                                                         "district")
TRADE = ActionTable(T.TRADE_DISTRICTS, "seat", "district", "give")


def remove_from_city(state: State, seat: int, district: str) -> bool:
    """Take one copy of `district` out of `seat`'s city, the plain copy first; return whether
    the copy taken was beautified (its Artist's gold goes with it)."""
    city, beautified = state.cities[seat], state.beautified[seat]
    city.remove(district)
    if beautified.count(district) > city.count(district):
        beautified.remove(district)
        return True
    return False


def _district_options(state: State, seat: int, actions: list[Action]) -> None:
    city, hand = state.cities[seat], state.hands[seat]
    if (state.gathered and state.builds_left > 0
            and state.current_char is not Character.NAVIGATOR):
        if C.FRAMEWORK in city:  # build any hand card by destroying the Framework
            actions.extend(FRAMEWORK[d] for d in dict.fromkeys(hand)
                           if d != C.FRAMEWORK and can_place(state, seat, d))
        if C.NECROPOLIS in hand and can_place(state, seat, C.NECROPOLIS):
            actions.extend(NECROPOLIS[d] for d in dict.fromkeys(city))
    if C.ARMORY in city:  # destroy the Armory to destroy any district of an incomplete city
        limit = int(state.rules["city_size"])
        for target in range(state.players):
            other = state.cities[target]
            if size(other) >= limit:
                continue
            actions.extend(ARMORY[target, d] for d in dict.fromkeys(other)
                           if not (target == seat and d == C.ARMORY))


def armory(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Both the Armory and its target go to the bottom of the deck."""
    target, district = int(str(action.seat)), str(action.district)
    remove_from_city(state, seat, C.ARMORY)
    remove_from_city(state, target, district)
    state.deck.append(C.ARMORY)
    events.append(public("armory_used", seat=seat, target=target, district=district))
    venues.to_deck(state, target, district, events)


def _diplomacy(state: State, seat: int) -> tuple[Action, ...]:
    """The Diplomat's swaps: one of his districts (not the Keep, nothing the other city has)
    for one of an incomplete city not the living Bishop's (not the Keep, nothing his has);
    he pays the cost difference (+1 for its Great Wall) when he takes the dearer one."""
    mine, purse = state.cities[seat], state.gold[seat]
    gives = [(g, current_cost(state, seat, g)) for g in dict.fromkeys(mine) if g != C.KEEP]
    return tuple(TRADE[target, d, g] for target, d, cost, wall in _takeable(state, seat)
                 for g, given in gives
                 if g not in state.cities[target] and max(0, cost - given) + wall <= purse)


def trade_districts(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Swap the two districts (each keeps its beautification); pay the difference."""
    target, taken, given = int(str(action.seat)), str(action.district), str(action.give)
    wall = 1 if C.GREAT_WALL in state.cities[target] else 0
    price = max(0, current_cost(state, target, taken) - current_cost(state, seat, given)) + wall
    before = (size(state.cities[seat]), size(state.cities[target]))
    state.used.append("ability")
    state.gold[seat] -= price
    state.gold[target] += price
    if remove_from_city(state, target, taken):
        state.beautified[seat].append(taken)
    if remove_from_city(state, seat, given):
        state.beautified[target].append(given)
    state.cities[seat].append(taken)
    state.cities[target].append(given)
    events.append(public("districts_traded", seat=seat, target=target, district=taken,
                         give=given, price=price, gold=gold((seat, -price), (target, price))))
    grew(state, seat, before[0], events)
    grew(state, target, before[1], events)


# --- the Abbot ---------------------------------------------------------------------------

ABBOT_INCOME = ActionTable(T.ABBOT_INCOME, "amount")
TAKE_FROM_RICHEST = ActionTable(T.TAKE_FROM_RICHEST, "seat")


def _abbot(state: State, seat: int) -> tuple[Action, ...]:
    """The Abbot's 1 gold from the richest player, when he is not among the richest (he
    chooses among tied richest players); his income is offered by `abbot_income_options`."""
    purse = state.gold
    richest = max(purse)
    if purse[seat] == richest:
        return ()
    return tuple(TAKE_FROM_RICHEST[s] for s in range(state.players) if purse[s] == richest)


def abbot_income_options(state: State, seat: int) -> tuple[Action, ...]:
    """One option per split of his religious income: `amount` gold, the rest cards."""
    total = income(state, seat, Character.ABBOT)
    return tuple(ABBOT_INCOME[k] for k in range(total, -1, -1))


def abbot_income(state: State, seat: int, action: Action, events: list[Event]) -> None:
    total = income(state, seat, Character.ABBOT)
    amount = int(str(action.amount))
    state.used.append("income")
    state.gold[seat] += amount
    events.append(public("income", seat=seat, character="abbot", amount=amount,
                         gold=gold((seat, amount))))
    if total > amount:
        drawn = draw(state, total - amount)
        state.hands[seat].extend(drawn)
        events.append(public("income_cards", seat=seat, character="abbot", count=len(drawn)))
        events.append(private(seat, "drew_cards", seat=seat, cards=drawn))


def take_from_richest(state: State, seat: int, action: Action, events: list[Event]) -> None:
    richest = int(str(action.seat))
    state.used.append("ability")
    state.gold[richest] -= 1
    state.gold[seat] += 1
    events.append(public("richest_paid", seat=seat, target=richest,
                         gold=gold((richest, -1), (seat, 1))))


# --- the Emperor ----------------------------------------------------------------------------

GIVE_CROWN, ADVISE = ActionTable(T.GIVE_CROWN, "seat", "resource"), ActionTable(T.ADVISE,
                                                                                "seat")


def _crowns(state: State, seat: int) -> tuple[Action, ...]:
    """The Emperor must give the crown to a seat other than himself and its holder, taking
    1 gold or 1 random hand card from it."""
    return tuple(GIVE_CROWN[s, r] for s in range(state.players)
                 if s != seat and s != state.crown for r in ("gold", "cards"))


def give_crown(state: State, seat: int, action: Action, events: list[Event]) -> None:
    target = int(str(action.seat))
    state.used.append("ability")
    state.crown = target
    events.append(public("crown_given", seat=seat, target=target, advisor=False))
    if action.resource == "gold" and state.gold[target] > 0:
        state.gold[target] -= 1
        state.gold[seat] += 1
        events.append(public("emperor_took", seat=seat, target=target, resource="gold",
                             amount=1, gold=gold((target, -1), (seat, 1))))
    elif action.resource == "cards" and state.hands[target]:
        hand = state.hands[target]
        card = hand.pop(state.rng.randrange(len(hand)))
        state.hands[seat].append(card)
        events.append(public("emperor_took", seat=seat, target=target, resource="cards",
                             amount=1, gold=[]))
        events.append(private(target, "card_lost", seat=target, district=card, by=seat))
        events.append(private(seat, "card_gained", seat=seat, district=card, target=target))


def start_advisor(state: State, seat: int) -> None:
    """A killed Emperor's holder, at the end of the round, moves the crown (no resource)."""
    state.phase, state.current_seat = "turn", seat
    state.current_char, state.pending = Character.EMPEROR, Pending.ADVISOR
    state.gathered, state.used, state.aside, state.builds_left = False, [], [], 0
    state.killed = None  # the advisor has acted on it: the round end runs on without him


def _advise_options(state: State, seat: int) -> tuple[str, tuple[Action, ...]]:
    return Kind.ADVISOR.value, tuple(ADVISE[s] for s in range(state.players)
                                     if s != seat and s != state.crown)


def _advise_context(state: State, seat: int) -> dict[str, Json]:
    return {"crown": state.crown}


def advise(state: State, seat: int, action: Action, events: list[Event]) -> None:
    target = int(str(action.seat))
    state.crown = target
    events.append(public("crown_given", seat=seat, target=target, advisor=True))
    state.pending = state.current_seat = state.current_char = None
    state.phase = "round_end"


# --- the Cardinal ---------------------------------------------------------------------------

CARDINAL_BUILD = ActionTable(T.CARDINAL_BUILD, "seat", "district")


def cardinal_builds(state: State, seat: int, actions: list[Action]) -> None:
    """Builds the Cardinal cannot pay alone: the missing gold from one player who has it,
    against as many of his other hand cards."""
    hand, purse = state.hands[seat], state.gold[seat]
    for d in dict.fromkeys(hand):
        short = build_cost(state, seat, d) - purse
        if short <= 0 or len(hand) - 1 < short or not can_place(state, seat, d):
            continue
        actions.extend(CARDINAL_BUILD[s, d] for s in range(state.players)
                       if s != seat and state.gold[s] >= short)


def cardinal_take(state: State, seat: int, action: Action, events: list[Event]) -> int:
    """Take the missing gold for the build from the named player; he is owed as many cards
    (`give_card` decisions after the build). Return the build's cost."""
    target, district = int(str(action.seat)), str(action.district)
    cost = build_cost(state, seat, district)
    short = cost - state.gold[seat]
    state.gold[target] -= short
    state.gold[seat] += short
    events.append(public("cardinal_took", seat=seat, target=target, amount=short,
                         gold=gold((target, -short), (seat, short))))
    state.owed = [target] * short
    return cost


CITY_OPTIONS.append(_district_options)
CARDINAL_OPTIONS.append(cardinal_builds)
INCOME_OPTIONS[Character.ABBOT] = abbot_income_options
ABILITIES.update({Character.NAVIGATOR: _navigate, Character.SCHOLAR: _study,
                  Character.MARSHAL: _seizures, Character.SPY: _spies,
                  Character.WIZARD: _looks, Character.SEER: _foresee,
                  Character.DIPLOMAT: _diplomacy, Character.ABBOT: _abbot,
                  Character.EMPEROR: _crowns})
PENDING.update({Pending.TAKE: (_take_options, _take_context),
                Pending.WIZARD_BUILD: (_wizard_build_options, _wizard_build_context),
                Pending.GIVE: (_give_options, _give_context),
                Pending.ADVISOR: (_advise_options, _advise_context)})
HANDLERS = {T.NAVIGATE: navigate, T.STUDY: study, T.SEIZE: seize, T.SPY: spy, T.LOOK: look,
            T.TAKE_CARD: take_card, T.FORESEE: foresee, T.GIVE_CARD: give_card,
            T.ARMORY: armory, T.TRADE_DISTRICTS: trade_districts,
            T.ABBOT_INCOME: abbot_income, T.TAKE_FROM_RICHEST: take_from_richest,
            T.GIVE_CROWN: give_crown, T.ADVISE: advise}
