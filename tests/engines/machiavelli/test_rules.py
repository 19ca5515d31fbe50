"""Table-driven checks of the draft set-up, atomic failure of bad actions, and option errors."""

from __future__ import annotations

import json
import random

import pytest

from arena.core.errors import ConfigError, IllegalAction, MalformedAction
from arena.games.machiavelli import GAME
from arena.games.machiavelli.actions import Action, ActionType
from arena.games.machiavelli.cards import Character
from arena.games.machiavelli.state import State

BASE = ["assassin", "thief", "magician", "king", "bishop", "merchant", "architect", "warlord"]


@pytest.mark.parametrize(
    ("players", "rank9", "faceup", "left"),
    [(4, False, 2, 5), (4, True, 3, 5), (5, False, 1, 6), (5, True, 2, 6), (6, False, 0, 7),
     (6, True, 1, 7), (7, False, 0, 7), (7, True, 0, 8), (8, True, 0, 8)],
    ids=lambda v: str(v),
)
def test_selection_discards(players: int, rank9: bool, faceup: int, left: int) -> None:
    """REFERENCE §1.3.1 table: face-up count, one face-down, a rank 4 never face-up."""
    rules = {"characters": [*BASE, "artist"]} if rank9 else {"characters": BASE}
    if players == 8:
        rules = {}
    for seed in range(60):
        state = GAME.new_game(players, rules, seed)
        assert len(state.faceup) == faceup
        assert Character.KING not in state.faceup
        assert len(state.facedown) == 1
        assert len(state.pool) == left


def test_two_and_three_players_take_two_characters_each() -> None:
    for players in (2, 3):
        state = GAME.new_game(players, {}, 4)
        while state.phase == "draft":
            decision = GAME.to_act(state)
            assert decision is not None
            GAME.apply(state, decision.seat, GAME.default_action(state, decision.seat))
        assert [len(c) for c in state.chars] == [2] * players
        assert len(state.facedown) == len(state.cast) - 2 * players


def playable_states(players: int, seed: int, every: int = 7) -> list[State]:
    state = GAME.new_game(players, {}, seed)
    policy = random.Random(seed)
    found: list[State] = []
    step = 0
    while (decision := GAME.to_act(state)) is not None:
        if step % every == 0:
            found.append(GAME.clone(state))
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
        step += 1
    return found


BAD_ACTIONS = [
    Action(ActionType.BUILD, district="palace"),
    Action(ActionType.KILL, character=Character.ASSASSIN),
    Action(ActionType.ROB, character=Character.ASSASSIN),
    Action(ActionType.DESTROY, seat=9, district="keep"),
    Action(ActionType.PICK_CHARACTER, character=Character.QUEEN),
    Action(ActionType.END_TURN),
]


@pytest.mark.parametrize("players", (2, 4, 6))
def test_illegal_actions_change_nothing(players: int) -> None:
    for state in playable_states(players, players):
        decision = GAME.to_act(state)
        assert decision is not None
        before = json.dumps(GAME.to_json(state))
        wrong_seat = (decision.seat + 1) % players
        legal = GAME.default_action(state, decision.seat)
        with pytest.raises(IllegalAction, match="may not act now"):
            GAME.apply(state, wrong_seat, legal)
        for action in BAD_ACTIONS:
            if GAME.action_to_wire(action) in (decision.options or ()):
                continue
            with pytest.raises(IllegalAction):
                GAME.apply(state, decision.seat, action)
        assert json.dumps(GAME.to_json(state)) == before


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("build", "must be a JSON object"),
        ({"type": "fly"}, r'"fly"; a "turn" decision takes the types .*build.*end_turn.* '
                          r"\(the request's options are the actions legal now\)$"),
        ({}, "unknown action type null"),
        ({"type": ["build"]}, "unknown action type"),  # unhashable: no lookup may raise
        ({"type": 3}, "unknown action type 3"),
        ({"type": "pick_character", "character": "king"}, 'not allowed for a "turn"'),
        ({"type": "build"}, "missing field"),
        ({"type": "build", "district": "manor", "x": 1}, "unexpected field"),
        ({"type": "build", "x": 1}, r'unexpected field "x"$'),  # as many keys as due
        ({"type": "build", "x": 1, "y": 2}, r'unexpected fields "x", "y"$'),
        ({"type": "build", "\x1b[2J": 1}, r'unexpected field "\\u001b\[2J"$'),  # JSON
        ({"type": "end_turn", "district": "manor"}, "unexpected field"),
        ({"type": "build", "district": "Manor"}, "unknown district"),
        ({"type": "kill", "character": "pope"}, "unknown character"),
        ({"type": "swap_hands", "seat": True}, "not a seat"),
        ({"type": "swap_hands", "seat": -1}, "not a seat"),
    ],
)
def test_malformed_payloads(payload: object, message: str) -> None:
    state = GAME.new_game(4, {}, 1)
    while (decision := GAME.to_act(state)) is not None and decision.kind != "turn":
        GAME.apply(state, decision.seat, GAME.default_action(state, decision.seat))
    assert decision is not None
    with pytest.raises(MalformedAction, match=message):
        GAME.parse_action(decision, payload)


def test_wire_round_trip_of_every_option() -> None:
    for state in playable_states(5, 2, every=3):
        decision = GAME.to_act(state)
        assert decision is not None
        for option in decision.options or ():
            assert GAME.action_to_wire(GAME.parse_action(decision, option)) == option


@pytest.mark.parametrize(
    ("players", "rules", "fragments"),
    [
        (4, {"city_sise": 7}, ["did you mean 'city_size'"]),
        (4, {"edition": "modern"}, ["not one of revised, classic"]),
        (4, {"great_wall": True, "dark_city": True},
         ["'great_wall': only for edition: classic", "'dark_city': only for edition: classic"]),
        (9, {}, ["9 players", "2-8"]),
        (4, {"characters": [*BASE[:7], "pope"]}, ["unknown character 'pope'", "rank 8"]),
        (4, {"characters": [*BASE, "queen"]}, ["queen needs 5"]),
        (3, {"characters": BASE}, ["3 players need a rank-9"]),
        (8, {"characters": BASE}, ["8 players need a rank-9"]),
        (2, {"characters": [*BASE, "artist"]}, ["ranks 1-8 only"]),
        (5, {"characters": [*BASE, "artist", "queen"]}, ["two characters of rank 9"]),
        (4, {"districts": ["keep", "keep", "university"]},
         ["listed twice", "'university' is not a unique district"]),
        (4, {"city_size": 0, "max_rounds": -1}, ["city_size", "max_rounds"]),
        (4, {"max_rounds": 10**12},
         ["'max_rounds': 1000000000000 is not an integer from 1 to 1000"]),
    ],
)
def test_option_errors_are_all_reported(players: int, rules: dict[str, object],
                                        fragments: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        GAME.resolve_rules(players, rules)
    text = str(info.value)
    for fragment in fragments:
        assert fragment in text


def test_options_resolve_to_concrete_values() -> None:
    two = GAME.resolve_rules(2, {})
    assert two["city_size"] == 8 and two["characters"] == BASE
    eight = GAME.resolve_rules(8, {"districts": ["Thieves' Den", "keep"]})
    assert eight["city_size"] == 7
    assert eight["characters"] == [*BASE, "tax_collector"]
    assert eight["districts"] == ["thieves_den", "keep"]
    assert GAME.resolve_rules(8, eight) == eight
