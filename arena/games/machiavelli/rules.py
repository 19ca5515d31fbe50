"""The Machiavelli game loop: calling characters, ending rounds, and the decision / validate /
apply cycle. After every action the engine runs the automatic steps (`settle`) until a seat
must decide, so a state held by a caller always waits for a decision or is over.

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.errors import IllegalAction
from arena.core.game import Event, Json, Termination
from arena.core.hotpath import make_decision

from . import draft, effects, powers, scoring, turn, venues, witch
from .actions import Action, Kind, shared_wires, wire_text
from .cards import NAMES, Character
from .events import CHARACTER_CALLED, gold, public
from .state import Legal, Pending, Phase, Spell, State

# module-level copies of class constants: in CPython 3.11 a global is a cached lookup, while
# an attribute of a class (an Enum's above all) is looked up afresh every time
_ROUND_START, _DRAFT, _CALL, _TURN, _ROUND_END = (
    Phase.ROUND_START, Phase.DRAFT, Phase.CALL, Phase.TURN, Phase.ROUND_END)
_THEATER = Phase.THEATER
_KEEP, _EXCHANGE, _DEN = Pending.KEEP, Pending.EXCHANGE, Pending.DEN
_GRAVEYARD = Pending.GRAVEYARD
_EMPEROR, _KING, _PATRICIAN = Character.EMPEROR, Character.KING, Character.PATRICIAN
_NAME = NAMES.__getitem__
_K_TURN = Kind.TURN.value


def settle(state: State) -> list[Event]:
    """Run the automatic steps (round start, calling characters, round end) and return their
    events; a no-op on a state that waits for a decision. Scenario setups call it too."""
    events: list[Event] = []
    state.cache = None
    if state.phase == _DRAFT:
        draft.advance(state, events)
    _run(state, events)
    return events


def _run(state: State, events: list[Event]) -> None:
    while True:
        phase = state.phase
        if phase == _CALL:
            _call(state, events)
        elif phase == _ROUND_START:
            draft.start_round(state, events)
        elif phase == _ROUND_END:
            _end_round(state, events)
        else:
            return


def _call(state: State, events: list[Event]) -> None:
    calling, cast = state.calling, state.cast
    if calling >= len(cast):
        state.phase = _ROUND_END
        return
    character = cast[calling]
    seat = draft.holder(state, character)
    if seat is None or character is state.killed:
        # nobody answers: the killed character's holder stays silent
        events.append(CHARACTER_CALLED[NAMES[character], None, character is state.killed])
        state.calling = calling + 1
        return
    state.revealed.append((seat, character))
    events.append(CHARACTER_CALLED[NAMES[character], seat, False])
    if character is state.robbed and state.thief_seat is not None:
        thief, amount = state.thief_seat, state.gold[seat]
        state.gold[seat] -= amount
        state.gold[thief] += amount
        events.append(public("robbed", seat=seat, thief=thief, amount=amount,
                             gold=gold((seat, -amount), (thief, amount)) if amount else []))
    if character is state.bewitched:
        witch.call_bewitched(state, seat, character, events)
    else:
        turn.start(state, seat, character, events)


def _end_round(state: State, events: list[Event]) -> None:
    killed = state.killed
    if killed is _EMPEROR:
        advisor = draft.holder(state, killed)
        if advisor is not None:
            powers.start_advisor(state, advisor)
            events.append(public("character_revealed", seat=advisor, character="emperor"))
            _pay_queen(state, advisor, events)
            return
    if killed is _KING or killed is _PATRICIAN:
        heir = draft.holder(state, killed)
        if heir is not None:
            state.crown = heir
            events.append(public("crown_taken", seat=heir, heir=True))
            _pay_queen(state, heir, events)
    events.append(public("round_ended", round=state.round))
    if state.first_complete is not None:
        _finish(state, Termination.COMPLETED, events)
    elif state.round >= state.rules["max_rounds"]:
        _finish(state, Termination.MAX_ROUNDS, events)
    else:
        state.phase = Phase.ROUND_START


def _pay_queen(state: State, rank4: int, events: list[Event]) -> None:
    """A revealed Queen next to a killed rank 4 revealed at the round's end gets her 3 gold."""
    queen = next((s for s, c in state.revealed if c is Character.QUEEN), None)
    if queen is not None and turn.neighbours(state, queen, rank4):
        state.gold[queen] += 3
        events.append(public("bonus_gold", seat=queen, character="queen", amount=3,
                             gold=gold((queen, 3))))


def _finish(state: State, termination: Termination, events: list[Event]) -> None:
    state.phase = Phase.OVER
    state.termination = termination.value
    result = state.scored = scoring.outcome(state)
    events.append(public("game_ended", termination=termination.value,
                         scores=list(result.scores), placings=list(result.placings)))


def legal(state: State) -> Legal | None:
    """Return the current decision and its legal actions (cached), or None when over."""
    cached: Legal | None = state.cache
    if cached is not None:
        return cached
    phase = state.phase
    if phase == _TURN and state.current_seat is not None:
        seat = state.current_seat
        if state.pending is None:
            # the common case, without the two general-purpose calls below
            kind, actions = _K_TURN, tuple(turn.turn_actions(state, seat))
            character = state.current_char
            context: dict[str, Json] = {
                "character": NAMES[character] if character else None,
                "gathered": state.gathered, "builds_left": state.builds_left}
            if state.bewitched is not None or state.spell is not None:
                _spell_context(state, context)
        elif state.pending == _GRAVEYARD:
            # the destroyed district's owner answers during the Warlord's turn
            kind, actions = turn.legal(state)
            seat = turn.graveyard_owner(state)
            context = {"district": state.aside[0], "price": 1}
        elif state.pending in turn.DECIDER:
            # another seat answers during this turn (the Magistrate about a build)
            kind, actions = turn.legal(state)
            seat = turn.DECIDER[state.pending](state)
            context = turn.PENDING[state.pending][1](state, seat)
        else:
            kind, actions = turn.legal(state)
            context = _turn_context(state, seat)
    elif phase == _DRAFT:
        seat, kind = draft.decision_seat(state)
        pool = sorted(state.pool)
        actions = draft.legal_from(pool, kind)
        context = {"characters": list(map(_NAME, pool))}
    elif phase == _THEATER:
        seat, kind, actions, context = venues.theater_decision(state)
    else:
        return None
    result = state.cache = Legal(make_decision(seat, kind, shared_wires(actions), context),
                                 actions)
    return result


def _turn_context(state: State, seat: int) -> dict[str, Json]:
    character, pending = state.current_char, state.pending
    context: dict[str, Json] = {
        "character": NAMES[character] if character else None,
        "gathered": state.gathered, "builds_left": state.builds_left,
    }
    if state.bewitched is not None or state.spell is not None:
        _spell_context(state, context)
    if pending is None:
        return context
    if pending == _KEEP or pending == Pending.STUDY:
        context["drawn"] = list(state.aside)
    elif pending == _EXCHANGE:
        context["set_aside"] = list(state.aside)
    elif pending == _DEN:
        context["cards_paid"] = list(state.aside)
        context["gold_due"] = max(0, turn.build_cost(state, seat, "thieves_den")
                                  - len(state.aside))
    elif pending in turn.PENDING:
        context.update(turn.PENDING[pending][1](state, seat))
    return context


def _spell_context(state: State, context: dict[str, Json]) -> None:
    """`spell` in a turn the Witch touches: `witch` (gather, then bewitch), `bewitched`
    (the holder gathers, and his turn ends), `resumed` (the Witch acts as the character)."""
    if state.spell is not None:
        context["spell"] = state.spell
    elif state.current_char is state.bewitched and state.current_seat == state.witch_seat:
        context["spell"] = Spell.RESUMED


def validate(state: State, seat: int, action: Action) -> Legal:
    """Check `action` for `seat` and return the decision it answers.

    Raises:
        IllegalAction: the game is over, another seat must decide, or the action is not
            among the legal ones now (the message says why where it can).
    """
    current = state.cache or legal(state)
    if current is None:
        raise IllegalAction("the game is over")
    decision = current.decision
    if current.checked is action and seat == decision.seat:
        return current
    if seat != decision.seat:
        raise IllegalAction(f"seat {seat} may not act now: seat {decision.seat} must decide "
                            f"({decision.kind})")
    if action not in current.actions:
        raise IllegalAction(f"{wire_text(action.to_wire())} is not legal for seat {seat} now "
                            f"({decision.kind}): {_why(state, seat, action, decision.kind)}")
    current.checked = action
    return current


def _why(state: State, seat: int, action: Action, kind: str) -> str:
    if kind in (Kind.PICK_CHARACTER, Kind.DISCARD_CHARACTER):
        names = ", ".join(c.wire for c in sorted(state.pool))
        return f"the characters to choose from are {names}"
    if kind == Kind.TURN:
        return turn.why_illegal(state, seat, action)
    return "choose one of the options of this decision"


def apply(state: State, seat: int, action: Action) -> list[Event]:
    """Validate then perform `action`, run the automatic steps, and return the events.

    Raises:
        IllegalAction: as `validate`; the state is left unchanged.
    """
    current = state.cache
    if current is None or current.checked is not action or seat != current.decision.seat:
        validate(state, seat, action)
    events: list[Event] = []
    state.cache = None
    if state.phase == _DRAFT:
        draft.apply(state, seat, action, events)
    else:
        _HANDLERS[action.type](state, seat, action, events)
    if state.phase != _TURN:
        _run(state, events)
    return events


_HANDLERS = effects.HANDLERS
