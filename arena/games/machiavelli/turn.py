"""A character's turn: the legal actions (options) and their effects (REFERENCE §1.4, §1.8).

Automatic effects with no choice in them (the King's crown, the Merchant's +1 gold, the
Architect's +2 cards, the Queen's +3 gold, the Bishop's protection) happen when the character
is revealed. Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.core.game import Event, Json

from . import cards as C
from .actions import Action, ActionTable, ActionType, Kind, make
from .cards import COST, INCOME_TYPE, INCOME_TYPE_OF, TYPE, Character, DistrictType
from .editions import EDITIONS, edition_of
from .events import gold, private, public
from .state import Pending, Phase, Spell, State

T = ActionType
GATHER_GOLD, GATHER_CARDS = make(T.GATHER_GOLD), make(T.GATHER_CARDS)
END_TURN, DONE, INCOME = make(T.END_TURN), make(T.DONE), make(T.COLLECT_INCOME)
SMITHY, TAKE_TAX, EXCHANGE = make(T.SMITHY), make(T.TAKE_TAX), make(T.EXCHANGE_CARDS)


def draw(state: State, count: int) -> list[str]:
    """Take up to `count` cards from the top of the deck (fewer if it runs out)."""
    drawn = state.deck[:count]
    del state.deck[:count]
    return drawn


FACTORY_COST: dict[str, int] = {
    d: max(0, cost - 1) if TYPE[d] is DistrictType.UNIQUE and d != C.FACTORY else cost
    for d, cost in COST.items()}
"""Build costs in a city with the Factory (it discounts the other unique districts)."""


def build_cost(state: State, seat: int, district: str) -> int:
    """Gold to build `district` for `seat` (the Factory discounts other unique districts)."""
    if C.FACTORY in state.cities[seat]:
        return FACTORY_COST[district]
    return EDITIONS[state.rules["edition"]].costs[district]


def size(city: list[str]) -> int:
    """The districts a city counts towards completion: the Monument counts as 2."""
    return len(city) + 1 if C.MONUMENT in city else len(city)


def complete(state: State, seat: int) -> bool:
    """Return whether `seat`'s city has reached the completion size."""
    return size(state.cities[seat]) >= int(state.rules["city_size"])


def destroy_price(state: State, seat: int, district: str) -> int:
    """Price for the Warlord to destroy `district` in `seat`'s city (cheapest copy): cost - 1,
    +1 when every copy is beautified (the plain one goes first), +1 behind a Great Wall."""
    city = state.cities[seat]
    edition = EDITIONS[state.rules["edition"]]
    plain = city.count(district) > state.beautified[seat].count(district)
    wall = C.GREAT_WALL in city and (district != C.GREAT_WALL
                                     or edition.great_wall_covers_itself)
    return max(0, edition.costs[district] + (0 if plain else 1) + (1 if wall else 0) - 1)


def income(state: State, seat: int, character: Character) -> int:
    """Gold from districts of the character's type (School of Magic counts as that type)."""
    kind = INCOME_TYPE_OF[character]
    city = state.cities[seat]
    return sum(1 for d in city if TYPE[d] is kind) + (1 if C.SCHOOL_OF_MAGIC in city else 0)


def start(state: State, seat: int, character: Character, events: list[Event],
          crown: bool = True) -> None:
    """Begin `character`'s turn for `seat` and apply its automatic effects; `crown` False:
    the King's or Patrician's crown went to the bewitched holder (the Witch resumes)."""
    state.phase = _TURN
    state.current_seat, state.current_char = seat, character
    state.gathered, state.used, state.pending, state.aside = False, [], None, []
    state.builds_left = BUILD_LIMIT.get(character, 1)
    state.build_paid, state.spell = 0, None
    if state.threats and character in state.threats:
        # he gathers and settles the threat first; his other effects wait for it (`markers`)
        state.spell = Spell.THREATENED
        return
    reveal_effects(state, seat, character, events, crown)


def reveal_effects(state: State, seat: int, character: Character, events: list[Event],
                   crown: bool = True) -> None:
    """The automatic effects of a character revealed (the turn begun by `start`)."""
    if character not in _AUTOMATIC:
        return
    if character is Character.KING or character is Character.PATRICIAN:
        if crown:
            state.crown = seat
            events.append(public("crown_taken", seat=seat, heir=False))
    elif character is _WITCH:
        state.spell = Spell.WITCH  # she gathers, then bewitches; no build, no other effect
    elif character is Character.BISHOP:
        state.bishop_seat = seat
    elif character is Character.MERCHANT:
        _gain(state, seat, 1, character, events)
    elif character is Character.ARCHITECT:
        if not edition_of(state.rules).architect_after_gather:
            architect_cards(state, seat, events)
    elif character is Character.QUEEN:
        king = next((s for s, c in state.revealed if c.rank == 4), None)
        if king is not None and neighbours(state, seat, king):
            _gain(state, seat, 3, character, events)


def architect_cards(state: State, seat: int, events: list[Event]) -> None:
    """The Architect's +2 cards: when revealed (revised), after his action (classic)."""
    drawn = draw(state, 2)
    state.hands[seat].extend(drawn)
    events.append(public("bonus_cards", seat=seat, character=Character.ARCHITECT.wire,
                         count=len(drawn)))
    events.append(private(seat, "drew_cards", seat=seat, cards=drawn))


# the characters with an automatic effect when revealed (`start` returns early for the others)
_AUTOMATIC = frozenset((Character.KING, Character.PATRICIAN, Character.BISHOP,
                        Character.MERCHANT, Character.ARCHITECT, Character.QUEEN,
                        Character.WITCH))
BUILD_LIMIT = {Character.ARCHITECT: 3, Character.SEER: 2, Character.SCHOLAR: 2,
               Character.NAVIGATOR: 0, Character.WITCH: 0}
"""Builds per turn where the character changes the limit of 1 (§1.4.1)."""
_TURN = Phase.TURN


def neighbours(state: State, a: int, b: int) -> bool:
    """Return whether seats `a` and `b` sit next to each other."""
    return a != b and (a - b) % state.players in (1, state.players - 1)


def _gain(state: State, seat: int, amount: int, character: Character,
          events: list[Event]) -> None:
    state.gold[seat] += amount
    events.append(public("bonus_gold", seat=seat, character=character.wire, amount=amount,
                         gold=gold((seat, amount))))


# the interned actions with an argument, by argument (a dict hit instead of a `make` call)
KEEP_CARD, DISCARD_CARD = ActionTable(T.KEEP_CARD, "district"), ActionTable(
    T.DISCARD_CARD, "district")
PAY_CARD, BUILD = ActionTable(T.PAY_CARD, "district"), ActionTable(T.BUILD, "district")
PAY_WITH_CARDS = ActionTable(T.PAY_WITH_CARDS, "district")
BEAUTIFY, LABORATORY = ActionTable(T.BEAUTIFY, "district"), ActionTable(T.LABORATORY, "district")
MUSEUM = ActionTable(T.MUSEUM, "district")
KILL, ROB = ActionTable(T.KILL, "character"), ActionTable(T.ROB, "character")
BEWITCH = ActionTable(T.BEWITCH, "character")
SWAP_HANDS, DESTROY = ActionTable(T.SWAP_HANDS, "seat"), ActionTable(
    T.DESTROY, "seat", "district")
K_TURN, K_KEEP = Kind.TURN.value, Kind.KEEP_CARD.value
K_EXCHANGE, K_DEN = Kind.EXCHANGE_CARDS.value, Kind.THIEVES_DEN.value
_KEEP, _EXCHANGE, _ARTIST = Pending.KEEP, Pending.EXCHANGE, Character.ARTIST
_WIZARD, _EMPEROR = Character.WIZARD, Character.EMPEROR
_NAVIGATOR, _WITCH = Character.NAVIGATOR, Character.WITCH
_TRADER, _CARDINAL, _TRADE = Character.TRADER, Character.CARDINAL, DistrictType.TRADE
_KEEPING = frozenset((Pending.KEEP, Pending.STUDY))  # both choose one card of `aside`

# the ability options depend only on the cast (and the killed character, or the seat), so
# they are built once per key; they are immutable tuples, shared freely
_KILLS: dict[tuple[Character, ...], tuple[Action, ...]] = {}
_ROBS: dict[tuple[tuple[Character, ...], Character | None], tuple[Action, ...]] = {}
_BEWITCHES: dict[tuple[Character, ...], tuple[Action, ...]] = {}
_SWAPS: dict[tuple[int, int], tuple[Action, ...]] = {}


def legal(state: State) -> tuple[str, tuple[Action, ...]]:
    """Return the decision kind and the legal actions of the current turn, safest first."""
    seat = state.current_seat
    assert seat is not None
    pending = state.pending
    if pending is None:
        return K_TURN, tuple(turn_actions(state, seat))
    hand = state.hands[seat]
    if pending in _KEEPING:
        return K_KEEP, tuple(map(KEEP_CARD.__getitem__, dict.fromkeys(state.aside)))
    if pending == _EXCHANGE:
        return K_EXCHANGE, (DONE, *map(DISCARD_CARD.__getitem__, dict.fromkeys(hand)))
    if pending in PENDING:
        return PENDING[pending][0](state, seat)
    if pending == Pending.GRAVEYARD:
        return Kind.GRAVEYARD.value, (DONE, KEEP_CARD[state.aside[0]])
    due = build_cost(state, seat, C.THIEVES_DEN) - len(state.aside)
    done = [DONE] if state.gold[seat] >= due else []
    pays = [] if due <= 0 else [PAY_CARD[d] for d in dict.fromkeys(hand) if d != C.THIEVES_DEN]
    return K_DEN, (*done, *pays)


PENDING: dict[str, tuple[Callable[[State, int], tuple[str, tuple[Action, ...]]],
                         Callable[[State, int], dict[str, Json]]]] = {}
"""Multi-step choices of the characters in `powers`: pending value -> (the decision kind and
its options, the decision's extra context). Filled by `powers` at import."""


DECIDER: dict[str, Callable[[State], int]] = {}
"""Multi-step choices made by another seat than the one whose turn it is: pending value ->
that seat (`markers`, at import); their context is their own, without the turn's."""


def pay_tax(state: State, payer: int, events: list[Event], exempt: bool) -> None:
    """A build's tax: 1 gold from the payer's stash onto the Tax Collector's token when he is
    in the cast (nothing from an empty stash); the Tax Collector's own builds are exempt."""
    if Character.TAX_COLLECTOR in state.cast and not exempt and state.gold[payer] > 0:
        state.gold[payer] -= 1
        state.tax_token += 1
        events.append(public("tax_paid", seat=payer, amount=1, gold=gold((payer, -1))))


INCOME_OPTIONS: dict[Character, Callable[[State, int], tuple[Action, ...]]] = {}
"""Income offered as several options (the Abbot's gold/card mix; `powers`, at import)."""
CARDINAL_OPTIONS: list[Callable[[State, int, list[Action]], None]] = []
"""The Cardinal's builds with another player's gold (`powers`, at import)."""
CITY_OPTIONS: list[Callable[[State, int, list[Action]], None]] = []
"""Options of the Armory, the Framework and the Necropolis (`powers`, filled at import);
called only when one of them is in the city (the Necropolis: in the hand)."""


def turn_actions(state: State, seat: int) -> list[Action]:
    """Return the legal actions of a turn with no multi-step choice pending, safest first."""
    character = state.current_char
    assert character is not None
    if state.spell is not None:
        return _spell_actions(state)
    used, city, purse, gathered = state.used, state.cities[seat], state.gold[seat], state.gathered
    if character in INCOME_TYPE and "income" not in used:
        actions = [INCOME, END_TURN] if gathered else [GATHER_GOLD, GATHER_CARDS, INCOME]
    else:
        actions = [END_TURN] if gathered else [GATHER_GOLD, GATHER_CARDS]
        if character in INCOME_OPTIONS and "income" not in used:
            actions.extend(INCOME_OPTIONS[character](state, seat))
    if "ability" not in used:
        abilities = ABILITIES.get(character)
        if abilities is not None:
            actions.extend(abilities(state, seat))
    if character is _ARTIST and purse >= 1 and used.count("beautify") < 2:
        done = state.beautified[seat]
        actions.extend(BEAUTIFY[d] for d in dict.fromkeys(city)
                       if city.count(d) > done.count(d))
    if gathered:
        if state.builds_left > 0:
            _build_actions(state, seat, actions)
            if character is _CARDINAL:
                CARDINAL_OPTIONS[0](state, seat, actions)
        elif character not in _NO_EXTRA_BUILDS:
            _extra_builds(state, seat, character, actions)
    if character is _EMPEROR and "ability" not in used and gathered:
        actions.remove(END_TURN)  # he must move the crown before his turn ends
    # one pass over the city for the five districts with options, instead of a scan each
    if not _OPTION_DISTRICTS.isdisjoint(city) or C.NECROPOLIS in state.hands[seat]:
        _district_options(state, seat, actions)
    if character is _NAVIGATOR and gathered and "ability" not in used and EDITIONS[
            state.rules["edition"]].navigator_after_action:
        actions.remove(END_TURN)  # the classic Navigator must take his 4 gold or 4 cards
    return actions


_OPTION_DISTRICTS = frozenset((C.ARMORY, C.FRAMEWORK, C.LABORATORY, C.SMITHY, C.MUSEUM))
"""The districts that add options to their owner's turn (the Necropolis does from the hand)."""


def _district_options(state: State, seat: int, actions: list[Action]) -> None:
    """Add the options of the Armory, Framework, Necropolis, Laboratory, Smithy and Museum."""
    city, hand, used = state.cities[seat], state.hands[seat], state.used
    if C.ARMORY in city or C.FRAMEWORK in city or C.NECROPOLIS in hand:
        for hook in CITY_OPTIONS:
            hook(state, seat, actions)
    if C.LABORATORY in city and "laboratory" not in used:
        actions.extend(map(LABORATORY.__getitem__, dict.fromkeys(hand)))
    if C.SMITHY in city and state.gold[seat] >= 2 and "smithy" not in used:
        actions.append(SMITHY)
    if C.MUSEUM in city and "museum" not in used:  # one hand card face down under it
        actions.extend(map(MUSEUM.__getitem__, dict.fromkeys(hand)))


def _spell_actions(state: State) -> list[Action]:
    """The turns the Witch restricts (§1.4.1): the Witch and the bewitched holder must
    gather first, nothing else (no gather-time choice but the gather's own district
    effects); then the Witch must bewitch a character of the cast (any but herself: she
    names characters, so one nobody holds is legal and she then never resumes). The
    holder's turn ends as soon as he has gathered, so he never decides with `gathered`."""
    if not state.gathered:
        return [GATHER_GOLD, GATHER_CARDS]
    cast = tuple(state.cast)
    bewitches = _BEWITCHES.get(cast)
    if bewitches is None:
        bewitches = _BEWITCHES[cast] = tuple(BEWITCH[c] for c in cast if c is not _WITCH)
    return list(bewitches)


def _kills(state: State, seat: int) -> tuple[Action, ...]:
    cast = tuple(state.cast)
    kills = _KILLS.get(cast)
    if kills is None:
        kills = _KILLS[cast] = tuple(KILL[c] for c in cast if c is not Character.ASSASSIN)
    return kills


def _robs(state: State, seat: int) -> tuple[Action, ...]:
    # the killed or the bewitched character (never both: the Assassin and the Witch are
    # both rank 1, so one cast never holds the two)
    key = (tuple(state.cast), state.killed if state.killed is not None else state.bewitched)
    robs = _ROBS.get(key)
    if robs is None:
        robs = _ROBS[key] = tuple(ROB[c] for c in key[0] if c.rank > 2 and c is not key[1])
    return robs


def _swaps(state: State, seat: int) -> tuple[Action, ...]:
    swaps = _SWAPS.get((state.players, seat))
    if swaps is None:
        swaps = _SWAPS[state.players, seat] = tuple(
            SWAP_HANDS[s] for s in range(state.players) if s != seat)
    return (*swaps, EXCHANGE) if state.hands[seat] else swaps


def _tax(state: State, seat: int) -> tuple[Action, ...]:
    return (TAKE_TAX,) if state.tax_token > 0 else ()


def _destroy_actions(state: State, seat: int) -> tuple[Action, ...]:
    edition = EDITIONS[state.rules["edition"]]
    if not state.gathered and edition.destroy_at_end:
        return ()  # the classic Warlord destroys at the end of his turn, after his action
    actions = []
    purse, limit = state.gold[seat], int(state.rules["city_size"])
    costs, wall_on_wall = edition.costs, edition.great_wall_covers_itself
    for target in range(state.players):
        city = state.cities[target]
        if target == state.bishop_seat or size(city) >= limit:
            continue
        beautified = state.beautified[target]
        wall = 1 if C.GREAT_WALL in city else 0
        for d in dict.fromkeys(city):
            if d == C.KEEP:
                continue
            # `destroy_price` inlined (this runs at every Warlord decision): cost - 1, +1 when
            # every copy is beautified, +1 behind a Great Wall (classic: not on the Wall)
            price = costs[d] if city.count(d) <= beautified.count(d) else costs[d] - 1
            if wall and (wall_on_wall or d != C.GREAT_WALL):
                price += 1
            if max(0, price) <= purse:
                actions.append(DESTROY[target, d])
    return tuple(actions)


# the characters with an optional ability (options) by character: one dict lookup, instead of
# a chain of comparisons, at every turn decision
ABILITIES: dict[Character, Callable[[State, int], tuple[Action, ...]]] = {
    Character.ASSASSIN: _kills, Character.THIEF: _robs, Character.MAGICIAN: _swaps,
    Character.WARLORD: _destroy_actions, Character.TAX_COLLECTOR: _tax,
}


def graveyard_owner(state: State) -> int:
    """The seat whose Graveyard is deciding (the deck holds one Graveyard)."""
    return next(s for s, city in enumerate(state.cities) if C.GRAVEYARD in city)


def can_place(state: State, seat: int, district: str) -> bool:
    """Return whether `district` may join `seat`'s city (no duplicates without the Quarry;
    no Monument in a city of 5 or more)."""
    city = state.cities[seat]
    if district in _LIMITED and (district == C.SECRET_VAULT or len(city) >= MONUMENT_LIMIT):
        return False
    return district not in city or C.QUARRY in city or state.current_char is _WIZARD


MONUMENT_LIMIT = 5
"""The Monument cannot be built in a city that already has this many districts."""
_LIMITED = frozenset((C.MONUMENT, C.SECRET_VAULT))
"""Districts with a build restriction of their own (one set lookup per hand card)."""


_SPECIAL_BUILDS = _LIMITED | {C.THIEVES_DEN}
"""Districts whose build options have rules of their own (`_build_actions`)."""


_NO_EXTRA_BUILDS = frozenset((Character.NAVIGATOR,))
"""The Navigator builds nothing at all, not even what ignores the limit (§1.8)."""


def free_of_limit(character: Character | None, district: str) -> bool:
    """Return whether building `district` leaves the build limit alone: the Stables, and a
    trade district for the Trader."""
    return district == C.STABLES or (character is _TRADER and TYPE[district] is _TRADE)


def _extra_builds(state: State, seat: int, character: Character,
                  actions: list[Action]) -> None:
    """Builds offered when the limit is used up: those that do not count against it."""
    purse = state.gold[seat]
    for d in dict.fromkeys(state.hands[seat]):
        if (free_of_limit(character, d) and can_place(state, seat, d)
                and build_cost(state, seat, d) <= purse):
            actions.append(BUILD[d])


def _build_actions(state: State, seat: int, actions: list[Action]) -> None:
    hand, purse, city = state.hands[seat], state.gold[seat], state.cities[seat]
    quarry = C.QUARRY in city or state.current_char is _WIZARD  # duplicates allowed
    costs = FACTORY_COST if C.FACTORY in city else EDITIONS[state.rules["edition"]].costs
    for d in dict.fromkeys(hand):
        if d not in _SPECIAL_BUILDS:
            # most cards: the price first, which rules out most of them without a city scan
            if costs[d] <= purse and (quarry or d not in city):
                actions.append(BUILD[d])
            continue
        if (d in city and not quarry) or d == C.SECRET_VAULT or (
                d == C.MONUMENT and len(city) >= MONUMENT_LIMIT):
            continue
        cost = costs[d]
        if cost <= purse:
            actions.append(BUILD[d])
        if d == C.THIEVES_DEN and len(hand) >= 2 and purse + len(hand) - 1 >= cost:
            actions.append(PAY_WITH_CARDS[d])


def why_illegal(state: State, seat: int, action: Action) -> str:
    """Explain, as precisely as cheaply possible, why a turn action is not legal now."""
    hand = state.hands[seat]
    d = action.district
    if state.spell is not None:
        return _spell_why(state)
    if action.type is T.PAY_WITH_CARDS and d != C.THIEVES_DEN:
        return f"only the thieves_den may be paid with cards, not the {d}"
    if action.type in (T.BUILD, T.PAY_WITH_CARDS) and d is not None:
        if not state.gathered:
            return "you must gather (gold or cards) before building"
        if state.builds_left <= 0 and not free_of_limit(state.current_char, d):
            return "no builds left this turn"
        if d == C.SECRET_VAULT:
            return "the secret_vault cannot be built (it scores 3 from your hand)"
        if d == C.MONUMENT and len(state.cities[seat]) >= MONUMENT_LIMIT:
            return f"the monument cannot join a city of {MONUMENT_LIMIT} or more districts"
        if d not in hand:
            return f"{d} is not in your hand"
        if not can_place(state, seat, d):
            return f"{d} is already in your city (no duplicates without the quarry)"
        cost, purse = build_cost(state, seat, d), state.gold[seat]
        if action.type is T.PAY_WITH_CARDS:
            others = len(hand) - 1
            if others == 0:
                return "paying with cards needs another card in your hand"
            return (f"{d} costs {cost}: your {purse} gold and {others} other hand "
                    f"card{'s' if others > 1 else ''} do not cover it")
        return f"{d} costs {cost} gold, you have {purse}"
    if action.type is T.END_TURN and not state.gathered:
        return "you must gather (gold or cards) before ending the turn"
    if state.current_char is _NAVIGATOR and edition_of(state.rules).navigator_after_action:
        if action.type is T.END_TURN:
            return "the classic navigator must take his 4 gold or 4 cards before ending"
        if action.type is T.NAVIGATE and not state.gathered:
            return "the classic navigator takes his 4 gold or 4 cards after gathering"
    if action.type in (T.GATHER_GOLD, T.GATHER_CARDS) and state.gathered:
        return "you have already gathered this turn"
    if action.type is T.ROB and action.character is not None:
        return ("the thief may not rob a rank-1 character, himself, the killed or the "
                "bewitched character")
    if action.type is T.DESTROY:
        if not state.gathered and edition_of(state.rules).destroy_at_end:
            return "the classic warlord destroys at the end of his turn: gather first"
        return ("not a legal target: completed cities, the keep and a living bishop's "
                "districts are immune, and the price (cost - 1) must be affordable")
    return "not allowed for your character now, or already used this turn"


def _spell_why(state: State) -> str:
    """Why an action is refused in a turn the Witch (or a threat) restricts."""
    if state.spell == Spell.WITCH:
        if not state.gathered:
            return "the witch must gather (gold or cards) first"
        return ("the witch must now bewitch a character (bewitch); her turn then pauses: "
                "no building, no other effect until she resumes")
    character = state.current_char.wire if state.current_char else "character"
    if state.spell == Spell.THREATENED:
        return (f"the {character} is threatened by the blackmailer: gather (gold or cards) "
                "first, then pay the bribe or refuse, before any ability or build")
    return (f"the {character} is bewitched: its holder only gathers (gold or cards) and his "
            f"turn ends; the witch plays the rest of it")
