"""Random-play conformance of the machiavelli engine for every player count (2-8).

Every step checks: the random action and every listed option validate, conservation of cards,
characters and gold (gold changes explained by events), JSON round trips, clones evolving
identically, and at the end that the scores equal a recomputation from the final state.
"""

from __future__ import annotations

import json
import random

import pytest

from arena.core.game import Termination
from arena.games.machiavelli import GAME
from arena.games.machiavelli.scoring import breakdown
from arena.games.machiavelli.state import State
from arena.games.machiavelli.turn import size

from .helpers import check_all

SEEDS = (11, 22, 33)


def play_checked(players: int, seed: int, rules: dict[str, object] | None = None,
                 seen: dict[str, int] | None = None) -> State:
    """Play a random game, checking every invariant after every action; return the end.
    `seen` gets the round in which a city was first completed (`completed_in`)."""
    state = GAME.new_game(players, rules or {}, seed)
    policy = random.Random(seed * 7 + players)
    steps = 0
    while (decision := GAME.to_act(state)) is not None:
        assert decision.options, "every machiavelli decision lists its options"
        for option in decision.options:
            GAME.validate(state, decision.seat, GAME.parse_action(decision, option))
        action = GAME.random_action(state, decision.seat, policy)
        assert GAME.action_to_wire(action) in decision.options
        GAME.validate(state, decision.seat, action)
        if steps % 25 == 0:
            data = GAME.to_json(state)
            assert GAME.to_json(GAME.from_json(json.loads(json.dumps(data)))) == data
            twin = GAME.clone(state)
            twin_events = GAME.apply(twin, decision.seat, action)
        before = GAME.clone(state)
        events = GAME.apply(state, decision.seat, action)
        check_all(before, state, events)
        if seen is not None and before.first_complete is None and \
                state.first_complete is not None:
            seen["completed_in"] = before.round
        if steps % 25 == 0:
            assert [e.to_wire() for e in twin_events] == [e.to_wire() for e in events]
            assert GAME.to_json(twin) == GAME.to_json(state)
        steps += 1
        assert steps < 20_000, "game does not end"
    return state


@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("seed", SEEDS)
def test_random_play_conforms(players: int, seed: int) -> None:
    seen: dict[str, int] = {}
    state = play_checked(players, seed, seen=seen)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.termination in (Termination.COMPLETED, Termination.MAX_ROUNDS)
    rounds, cap = outcome.details["rounds"], state.rules["max_rounds"]
    if outcome.termination is Termination.MAX_ROUNDS:
        assert rounds == cap
    else:  # a completed city ends the game in the round it is completed
        assert rounds == seen["completed_in"] and rounds <= cap
        assert any(size(city) >= state.rules["city_size"] for city in state.cities)
    assert outcome.scores == tuple(breakdown(state, s)["total"] for s in range(players))
    assert len(outcome.details["breakdown"]) == players
    assert min(outcome.placings) == 1
    with pytest.raises(Exception, match="game is over"):
        GAME.default_action(state, 0)


def test_a_short_max_rounds_ends_the_game_as_it_stands() -> None:
    state = play_checked(4, 3, {"max_rounds": 2, "city_size": 30})
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.termination is Termination.MAX_ROUNDS
    assert outcome.details["rounds"] == 2


@pytest.mark.parametrize("players", (3, 5, 8))
def test_rank9_characters_play(players: int) -> None:
    cast = ["assassin", "thief", "magician", "king", "bishop", "merchant", "architect",
            "warlord"]
    for rank9 in ("artist", "tax_collector", *(("queen",) if players >= 5 else ())):
        state = play_checked(players, 5, {"characters": [*cast, rank9]})
        assert GAME.outcome(state) is not None


def test_default_policy_ends_by_max_rounds_or_completion() -> None:
    state = GAME.new_game(4, {"max_rounds": 10}, 1)
    while (decision := GAME.to_act(state)) is not None:
        GAME.apply(state, decision.seat, GAME.default_action(state, decision.seat))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.details["rounds"] <= 10


@pytest.mark.slow
@pytest.mark.parametrize("players", range(2, 9))
def test_random_play_soak(players: int) -> None:
    for seed in range(100, 130):
        play_checked(players, seed)
