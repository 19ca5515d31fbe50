"""The selection phase (character draft) for 2 to 8 players (REFERENCE §1.3.1-1.3.3).

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Event
from arena.core.hotpath import make_decision
from arena.core.rng import shuffle

from . import venues
from .actions import Action, ActionTable, ActionType, Kind, shared_wires
from .cards import NAMES, Character
from .editions import edition_of
from .events import CHARACTER_PICKED, OWN_PICK, private, public
from .state import Legal, Phase, State

PICK, DISCARD, RANDOM = "pick", "discard", "random"
_NAME = NAMES.__getitem__

# face-up discards by player count: (with 8 characters, with 9 characters)
FACEUP: dict[int, tuple[int, int]] = {2: (0, 0), 3: (0, 0), 4: (2, 3), 5: (1, 2), 6: (0, 1),
                                      7: (0, 0), 8: (0, 0)}

_STEPS: dict[int, tuple[tuple[int, str], ...]] = {
    # (seat offset from the crown, what that seat does); RANDOM is done by the engine
    2: ((0, PICK), (1, PICK), (1, DISCARD), (0, PICK), (0, DISCARD), (1, PICK)),
    3: ((0, PICK), (1, PICK), (2, PICK), (2, RANDOM), (0, PICK), (1, PICK), (2, PICK)),
}


for _players in range(4, 9):
    _STEPS[_players] = tuple((offset, PICK) for offset in range(_players))

_CLASSIC_THREE = ((0, PICK), (1, PICK), (2, PICK), (0, PICK), (1, PICK), (2, PICK))
"""Classic 3 players (REFERENCE §1.3.3): the 7 cards go round twice; the last one left is
discarded face down by the draft's end."""


def steps(state: State) -> tuple[tuple[int, str], ...]:
    """Return the draft script: one (seat offset from the crown, operation) per step."""
    players = state.players
    if players == 3 and not edition_of(state.rules).three_player_random_discard:
        return _CLASSIC_THREE
    return _STEPS[players]


def takes_facedown(state: State) -> bool:
    """Return whether the last seat is offered the face-down card (7 of 8, 8 of 9)."""
    return (state.players, len(state.cast)) in ((7, 8), (8, 9))


def start_round(state: State, events: list[Event]) -> None:
    """Begin a round: shuffle the cast, discard face-up then one face-down, open the draft."""
    state.round += 1
    for seat_chars in state.chars:
        seat_chars.clear()
    state.faceup, state.facedown = [], []
    state.killed = state.robbed = state.thief_seat = state.bishop_seat = None
    state.bewitched = state.witch_seat = state.spell = None
    state.revealed = []
    # the markers of the rank-1 and rank-2 characters last one round
    state.magistrate, state.warrants, state.signed = None, [], None
    state.blackmailer, state.threats, state.flower = None, [], None
    pool = list(state.cast)
    shuffle(state.rng, pool)
    faceup_count = FACEUP[state.players][len(state.cast) == 9]
    events.append(public("round_started", round=state.round, crown=state.crown))
    while len(state.faceup) < faceup_count:
        card = pool.pop()
        if card.rank == 4:
            # a rank-4 card may not lie face-up: another card takes its place, it is reshuffled
            replacement = pool.pop()
            pool.append(card)
            shuffle(state.rng, pool)
            card = replacement
            events.append(public("rank4_reshuffled"))
        state.faceup.append(card)
    state.facedown.append(pool.pop())
    state.pool = pool
    events.append(public("characters_discarded",
                         faceup=list(map(NAMES.__getitem__, state.faceup)), facedown=1))
    state.phase = Phase.DRAFT
    state.draft_index = 0
    advance(state, events)


def advance(state: State, events: list[Event]) -> None:
    """Run automatic draft steps until a seat must choose, or end the draft."""
    script = steps(state)
    while state.phase == Phase.DRAFT:
        index = state.draft_index
        if index >= len(script):
            _end(state, events)
            return
        offset, op = script[index]
        if op == RANDOM:
            card = state.pool.pop(state.rng.randrange(len(state.pool)))
            state.facedown.append(card)
            events.append(public("characters_discarded", faceup=[], facedown=1))
            state.draft_index = index + 1
            continue
        seat = (state.crown + offset) % state.players
        if index == len(script) - 1 and len(state.pool) == 1 and takes_facedown(state):
            state.pool.append(state.facedown.pop(0))
            events.append(public("facedown_offered", seat=seat))
        pool = sorted(state.pool)
        names = list(map(_NAME, pool))
        events.append(private(seat, "characters_offered", seat=seat, characters=names,
                              step=op))
        _offer(state, seat, _KINDS[op], pool, list(names))
        return


def _offer(state: State, seat: int, kind: str, pool: list[Character],
           names: list[str]) -> None:
    """Cache the decision of the seat the draft waits for (`State.cache`), as `rules.legal`
    would build it: here the seat, kind and sorted pool are at hand, where `rules.legal`
    worked them out again at the next `to_act` (bench/engine.py, 1,000 games, two interleaved
    runs: pick_character 11.9-12.8 -> 9.6-10.0 us)."""
    actions = legal_from(pool, kind)
    state.cache = Legal(make_decision(seat, kind, shared_wires(actions),
                                      {"characters": names}), actions)


def _end(state: State, events: list[Event]) -> None:
    if state.pool:
        events.append(public("characters_discarded", faceup=[], facedown=len(state.pool)))
        state.facedown.extend(state.pool)
        state.pool = []
    venues.after_draft(state)


_PICK, _DISCARD = ActionTable(ActionType.PICK_CHARACTER, "character"), ActionTable(
    ActionType.DISCARD_CHARACTER, "character")
_KINDS = {PICK: Kind.PICK_CHARACTER.value, DISCARD: Kind.DISCARD_CHARACTER.value}
_K_PICK, _T_PICK = Kind.PICK_CHARACTER.value, ActionType.PICK_CHARACTER


def decision_seat(state: State) -> tuple[int, str]:
    """Return the seat that must choose now and the decision kind."""
    offset, op = steps(state)[state.draft_index]
    return (state.crown + offset) % state.players, _KINDS[op]


def legal(state: State, kind: str) -> list[Action]:
    """Return the legal draft actions, in rank order."""
    return list(legal_from(sorted(state.pool), kind))


def legal_from(pool: list[Character], kind: str) -> tuple[Action, ...]:
    """Return the legal draft actions for the pool already sorted in rank order."""
    return tuple(map((_PICK if kind == _K_PICK else _DISCARD).__getitem__, pool))


def apply(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """Apply a (validated) pick or discard and run the draft on."""
    card = action.character
    assert card is not None  # guaranteed by validation against the legal list
    state.pool.remove(card)
    if action.type is _T_PICK:
        state.chars[seat].append(card)
        events.append(CHARACTER_PICKED[seat])
        events.append(OWN_PICK[seat, NAMES[card]])
    else:
        state.facedown.append(card)
        events.append(public("character_discarded", seat=seat))
        events.append(private(seat, "own_discard", seat=seat, character=NAMES[card]))
    state.draft_index += 1
    advance(state, events)


def holder(state: State, character: Character) -> int | None:
    """Return the seat holding `character` this round, or None."""
    for seat, held in enumerate(state.chars):
        if character in held:
            return seat
    return None
