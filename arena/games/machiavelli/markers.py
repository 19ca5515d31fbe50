"""The characters who lay face-down markers on other characters (REFERENCE §1.8): the
Magistrate's three warrants, one of them signed, and the Blackmailer's two threats, one of
them with the flower. Which marker is the real one is a secret of the seat that laid them
until it is revealed: it lives in the state (`State.signed`, `State.flower`), goes to that
seat alone (`own_warrant` / `own_threat`, and its observation), and nothing the other seats
are sent depends on it. So every step the real marker could cause happens for the decoys
too: the Magistrate decides at the first paid build of *every* warranted character, and
letting it pass looks the same whichever warrant it was; every threatened player pays or
refuses, and after a refusal the Blackmailer may reveal either marker.

Options and effects register into `turn` and `effects` at import, as `powers` does.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from arena.core.game import Event, Json

from .actions import Action, ActionTable, ActionType, Kind, make
from .cards import NAMES, Character
from .events import gold, private, public
from .powers import grew, remove_from_city
from .state import Pending, State
from .turn import ABILITIES, DECIDER, DONE, PENDING, pay_tax, reveal_effects, size

T = ActionType
WARRANTS = 3
"""Warrant markers the Magistrate lays, one of them signed."""
PLACE_WARRANTS = ActionTable(T.PLACE_WARRANTS, "character", "decoys")
CONFISCATE = make(T.CONFISCATE)

_PLACEMENTS: dict[tuple[Character, ...], tuple[Action, ...]] = {}


def placements(cast: tuple[Character, ...], markers: int, table: ActionTable,
               cache: dict[tuple[Character, ...], tuple[Action, ...]]) -> tuple[Action, ...]:
    """Every way to lay `markers` markers on different characters of `cast` (already the
    characters allowed), one of them the real one: by set in rank order, then by the real
    one. Built once per cast: the options are immutable and shared."""
    found = cache.get(cast)
    if found is None:
        found = cache[cast] = tuple(
            table[real, tuple(c for c in chosen if c is not real)]
            for chosen in combinations(cast, markers) for real in chosen)
    return found


def _warrant_options(state: State, seat: int) -> tuple[Action, ...]:
    """Any three characters but himself (a face-up discard too: nobody answers its call)."""
    cast = tuple(c for c in state.cast if c is not Character.MAGISTRATE)
    return placements(cast, WARRANTS, PLACE_WARRANTS, _PLACEMENTS)


def place_warrants(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Lay the warrants: the table sees on which characters, the Magistrate alone which one
    is signed."""
    state.magistrate = seat
    state.signed, state.warrants = lay(seat, action, events, "warrant")
    state.used.append("ability")


def lay(seat: int, action: Action, events: list[Event],
        marker: str) -> tuple[Character, list[Character]]:
    """Lay face-down markers (`warrant` or `threat`): the table is told on which
    characters, the laying seat alone which one is real. Returns (real one, all, sorted)."""
    real, decoys = action.character, action.decoys
    assert real is not None and decoys is not None
    laid = sorted((real, *decoys))
    events.append(public(f"{marker}s_placed", seat=seat, characters=[NAMES[c] for c in laid]))
    events.append(private(seat, f"own_{marker}", seat=seat, character=NAMES[real]))
    return real, laid


def held_for_warrant(state: State, seat: int, paid: int, cards: int) -> bool:
    """Return whether the build just paid for waits for the Magistrate: the first paid build
    (gold or the Thieves' Den's cards) of a character under a warrant, signed or not."""
    return (paid > 0 or cards > 0) and state.current_char in state.warrants


def hold(state: State, district: str, paid: int, before: int) -> None:
    """Open the Magistrate's decision about the build; its tax and its city's completion
    wait for it (either may end up his)."""
    state.warrant_build = [district, paid, before]
    state.pending = Pending.WARRANT


def _magistrate(state: State) -> int:
    assert state.magistrate is not None
    return state.magistrate


def _build(state: State) -> tuple[str, int, int]:
    assert state.warrant_build is not None
    district, paid, before = state.warrant_build
    return str(district), int(str(paid)), int(str(before))


def _warrant_decision(state: State, seat: int) -> tuple[str, tuple[Action, ...]]:
    """`done` always; `confiscate` only under the signed warrant, from another seat, and
    for a district his city does not hold (not even with the Quarry)."""
    magistrate, builder = _magistrate(state), state.current_seat
    district = _build(state)[0]
    if (state.current_char is state.signed and builder != magistrate
            and district not in state.cities[magistrate]):
        return Kind.WARRANT.value, (DONE, CONFISCATE)
    return Kind.WARRANT.value, (DONE,)


def _warrant_context(state: State, seat: int) -> dict[str, Json]:
    district, paid, _ = _build(state)
    character = state.current_char
    return {"builder": state.current_seat, "character": NAMES[character] if character else None,
            "district": district, "paid": paid}


def _settled(state: State) -> tuple[str, int, int, int, Character]:
    """Close the decision: the build's warrant is spent, signed or not. Return the build,
    the builder and his character."""
    district, paid, before = _build(state)
    builder, character = state.current_seat, state.current_char
    assert builder is not None and character is not None
    state.warrants.remove(character)
    if state.signed is character:
        state.signed = None
    state.warrant_build = None
    # the Cardinal still owes the cards for the gold he took (`give_card`)
    state.pending = Pending.GIVE if state.owed else None
    return district, paid, before, builder, character


def pass_warrant(state: State, seat: int, events: list[Event]) -> None:
    """`done`: the build stands; its tax and completion follow as for any build."""
    district, _, before, builder, character = _settled(state)
    events.append(public("warrant_passed", seat=seat, target=builder,
                         character=NAMES[character], district=district))
    pay_tax(state, builder, events, exempt=character is Character.TAX_COLLECTOR)
    grew(state, builder, before, events)


def confiscate(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Reveal the signed warrant: the district joins the Magistrate's city free, the builder
    gets back the gold he paid (cards paid to the Thieves' Den stay in the deck), and the
    Magistrate pays the build's tax. The build still counts against the builder's limit."""
    district, paid, _, builder, character = _settled(state)
    state.warrants.clear()  # revealed: the others are known to be unsigned
    remove_from_city(state, builder, district)
    before = size(state.cities[seat])
    state.cities[seat].append(district)
    state.gold[builder] += paid
    state.build_paid -= paid  # the Alchemist is not refunded twice
    events.append(public("confiscated", seat=seat, target=builder, character=NAMES[character],
                         district=district, refund=paid,
                         gold=gold((builder, paid)) if paid else []))
    pay_tax(state, seat, events, exempt=False)
    grew(state, seat, before, events)


# --- the Blackmailer ------------------------------------------------------------------------

THREATS = 2
"""Threat markers the Blackmailer lays, one with the flower."""
THREATEN = ActionTable(T.THREATEN, "character", "decoys")
PAY_BRIBE, REFUSE_BRIBE = make(T.PAY_BRIBE), make(T.REFUSE_BRIBE)
REVEAL = make(T.REVEAL_THREAT)
_THREATS: dict[tuple[Character, ...], tuple[Action, ...]] = {}


def _threat_options(state: State, seat: int) -> tuple[Action, ...]:
    """Two different characters of rank 2 or more, not himself, not the killed nor the
    bewitched one (a face-up discard too, as the Assassin may name one)."""
    killed, bewitched = state.killed, state.bewitched
    cast = tuple(c for c in state.cast if c.rank > 1 and c is not Character.BLACKMAILER
                 and c is not killed and c is not bewitched)
    return placements(cast, THREATS, THREATEN, _THREATS)


def threaten(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Lay the threats: the table sees on which characters, the Blackmailer alone which one
    bears the flower."""
    state.blackmailer = seat
    state.flower, state.threats = lay(seat, action, events, "threat")
    state.used.append("ability")


def demand(state: State, seat: int, events: list[Event]) -> None:
    """The threatened player has gathered: he must now pay or refuse (`bribe`)."""
    state.spell, state.pending = None, Pending.BRIBE


def bribe(state: State, seat: int) -> int:
    """Half the threatened player's gold, rounded down (0 with 1 gold)."""
    return state.gold[seat] // 2


def _bribe_options(state: State, seat: int) -> tuple[str, tuple[Action, ...]]:
    return Kind.BRIBE.value, (PAY_BRIBE, REFUSE_BRIBE)


def _bribe_context(state: State, seat: int) -> dict[str, Json]:
    return {"blackmailer": _blackmailer(state), "bribe": bribe(state, seat)}


def _blackmailer(state: State) -> int:
    assert state.blackmailer is not None
    return state.blackmailer


def pay_bribe(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Pay half his gold: the marker goes away unrevealed (nobody learns which it was)."""
    blackmailer, amount = _blackmailer(state), bribe(state, seat)
    state.gold[seat] -= amount
    state.gold[blackmailer] += amount
    character = _settle(state)
    events.append(public("bribe_paid", seat=seat, target=blackmailer, character=NAMES[character],
                         amount=amount,
                         gold=gold((seat, -amount), (blackmailer, amount)) if amount else []))
    _carry_on(state, seat, character, events)


def refuse_bribe(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Refuse: the Blackmailer decides whether to reveal the marker (`reveal_threat`)."""
    character = state.current_char
    assert character is not None
    state.pending = Pending.REVEAL_THREAT
    events.append(public("bribe_refused", seat=seat, target=_blackmailer(state),
                         character=NAMES[character]))


def _reveal_options(state: State, seat: int) -> tuple[str, tuple[Action, ...]]:
    """`done` first (keep it face down), then `reveal_threat`, whichever marker it is: he
    may show a decoy too, so the options tell nothing either."""
    return Kind.REVEAL_THREAT.value, (DONE, REVEAL)


def _reveal_context(state: State, seat: int) -> dict[str, Json]:
    character = state.current_char
    return {"target": state.current_seat, "character": NAMES[character] if character else None}


def reveal_threat(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Show the marker: with the flower he takes all the threatened player's gold."""
    target, flowered = state.current_seat, state.flower is state.current_char
    assert target is not None
    amount = state.gold[target] if flowered else 0
    state.gold[target] -= amount
    state.gold[seat] += amount
    character = _settle(state)
    events.append(public("threat_revealed", seat=seat, target=target,
                         character=NAMES[character], flower=flowered, amount=amount,
                         gold=gold((target, -amount), (seat, amount)) if amount else []))
    _carry_on(state, target, character, events)


def keep_threat(state: State, seat: int, events: list[Event]) -> None:
    """`done` in `reveal_threat`: the marker goes away unrevealed."""
    target = state.current_seat
    assert target is not None
    character = _settle(state)
    events.append(public("threat_not_revealed", seat=seat, target=target,
                         character=NAMES[character]))
    _carry_on(state, target, character, events)


def _settle(state: State) -> Character:
    """The current character's threat is settled: its marker leaves the table."""
    character = state.current_char
    assert character is not None
    state.threats.remove(character)
    if state.flower is character:
        state.flower = None
    state.pending = None
    return character


def _carry_on(state: State, seat: int, character: Character, events: list[Event]) -> None:
    """The rest of the threatened player's turn: the effects his character has when
    revealed come now (the Merchant's +1 after the bribe, not before)."""
    reveal_effects(state, seat, character, events)


ABILITIES[Character.MAGISTRATE] = _warrant_options
ABILITIES[Character.BLACKMAILER] = _threat_options
PENDING.update({Pending.WARRANT: (_warrant_decision, _warrant_context),
                Pending.BRIBE: (_bribe_options, _bribe_context),
                Pending.REVEAL_THREAT: (_reveal_options, _reveal_context)})
DECIDER.update({Pending.WARRANT: _magistrate, Pending.REVEAL_THREAT: _blackmailer})
HANDLERS = {T.PLACE_WARRANTS: place_warrants, T.CONFISCATE: confiscate, T.THREATEN: threaten,
            T.PAY_BRIBE: pay_bribe, T.REFUSE_BRIBE: refuse_bribe,
            T.REVEAL_THREAT: reveal_threat}
DONE_HANDLERS: dict[str | None, Callable[[State, int, list[Event]], None]] = {
    Pending.WARRANT: pass_warrant, Pending.REVEAL_THREAT: keep_threat}
"""What `done` does in the decisions of this module (`effects` asks before its own)."""
