"""The engine's fast paths build exactly what the slow, obvious code would."""

from __future__ import annotations

import json
import random

import pytest

from arena.core.errors import IllegalAction
from arena.core.game import Event
from arena.games.machiavelli import GAME
from arena.games.machiavelli.actions import Action, ActionType, make, shared_wires
from arena.games.machiavelli.cards import Character
from arena.games.machiavelli.events import (
    CHARACTER_CALLED,
    CHARACTER_PICKED,
    OWN_PICK,
    TURN_ENDED,
    private,
    public,
)
from arena.games.machiavelli.turn import BUILD, DESTROY, KILL


def test_events_equal_normally_built_ones() -> None:
    assert public("built", seat=1, district="manor") == Event(
        "built", {"seat": 1, "district": "manor"})
    assert private(2, "drew_cards", seat=2, cards=["keep"]) == Event(
        "drew_cards", {"seat": 2, "cards": ["keep"]}, frozenset({2}))


def test_event_tables_hold_equal_shared_events() -> None:
    called = CHARACTER_CALLED["king", None, True]
    assert called == Event("character_called", {"character": "king", "seat": None,
                                                "killed": True})
    assert list(called.data) == ["character", "seat", "killed"]  # the wire's key order
    assert CHARACTER_CALLED["king", None, True] is called
    assert CHARACTER_PICKED[3] == Event("character_picked", {"seat": 3})
    assert OWN_PICK[3, "thief"] == Event("own_pick", {"seat": 3, "character": "thief"},
                                         frozenset({3}))
    assert TURN_ENDED[0, None] == Event("turn_ended", {"seat": 0, "character": None})


def test_action_tables_hold_the_interned_actions() -> None:
    assert BUILD["manor"] is make(ActionType.BUILD, district="manor")
    assert KILL[Character.KING] is make(ActionType.KILL, character=Character.KING)
    assert DESTROY[2, "keep"] is make(ActionType.DESTROY, seat=2, district="keep")
    assert shared_wires((DESTROY[2, "keep"],)) == ({"type": "destroy", "seat": 2,
                                                     "district": "keep"},)


def test_an_equal_action_built_by_hand_is_accepted() -> None:
    state = GAME.new_game(4, {}, 1)
    decision = GAME.to_act(state)
    assert decision is not None
    chosen = GAME.random_action(state, decision.seat, random.Random(0))
    by_hand = Action(chosen.type, chosen.character, chosen.district, chosen.seat)
    assert by_hand is not chosen
    GAME.validate(state, decision.seat, by_hand)
    assert GAME.apply(state, decision.seat, by_hand)


def test_random_action_draws_as_randrange_did() -> None:
    # replays and `arena simulate` figures depend on the exact draws of the random policy
    state = GAME.new_game(5, {}, 9)
    policy, reference = random.Random(3), random.Random(3)
    for _ in range(200):
        decision = GAME.to_act(state)
        assert decision is not None
        actions = GAME.legal_actions(state)
        expected = actions[reference.randrange(len(actions))]
        assert GAME.random_action(state, decision.seat, policy) is expected
        GAME.apply(state, decision.seat, expected)


OBSERVATION_KEYS = [
    "seat", "players", "round", "phase", "crown", "city_size", "cast", "gold", "hand_sizes",
    "cities", "beautified", "deck_size", "tax_token", "first_complete", "faceup_discards",
    "killed", "robbed", "bewitched", "revealed", "current", "hand", "characters", "draft_pool",
    "turn", "warrants", "signed_warrant", "threats", "flower", "museum"]


def _vandalise(value: object) -> None:
    """Clear every container reachable from `value` (a caller scribbling on what it got)."""
    if isinstance(value, dict):
        for item in value.values():
            _vandalise(item)
        value.clear()
        value["junk"] = 1
    elif isinstance(value, list):
        for item in value:
            _vandalise(item)
        value.clear()
        value.append("junk")


def test_observations_are_fresh_and_in_wire_key_order() -> None:
    # observation copies a shared template and the state's lists: what a caller does to one
    # observation must not reach the state, the template or the next observation
    state = GAME.new_game(5, {}, 4)
    policy = random.Random(4)
    for _ in range(300):
        decision = GAME.to_act(state)
        if decision is None:
            break
        before = GAME.to_json(state)
        for seat in range(5):
            first = GAME.observation(state, seat)
            assert list(first) == OBSERVATION_KEYS
            copy = json.loads(json.dumps(first))
            _vandalise(first)
            assert GAME.observation(state, seat) == copy
        assert GAME.to_json(state) == before
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))


@pytest.mark.parametrize(("players", "rules"), [
    (4, {}), (8, {"cast": "random", "district_preset": "random"}), (5, {"cast": "random"}),
    (3, {"edition": "classic"})])
def test_the_view_equals_the_observation(players: int, rules: dict[str, object]) -> None:
    # the referee sends the view (encoded at once, so it may share the state's lists): it
    # must be what `observation` says, key order included, for every seat at every step
    state = GAME.new_game(players, rules, 7)
    policy = random.Random(7)
    while (decision := GAME.to_act(state)) is not None:
        for seat in range(players):
            view = GAME.observation_view(state, seat)
            assert view == GAME.observation(state, seat)
            assert list(view) == OBSERVATION_KEYS
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))


def test_a_checked_action_is_still_refused_to_another_seat() -> None:
    # validate skips the rules for the action the engine just chose, but only for its seat
    state = GAME.new_game(4, {}, 2)
    decision = GAME.to_act(state)
    assert decision is not None
    chosen = GAME.default_action(state, decision.seat)
    with pytest.raises(IllegalAction, match=f"seat {(decision.seat + 1) % 4} may not act"):
        GAME.validate(state, (decision.seat + 1) % 4, chosen)
    GAME.validate(state, decision.seat, chosen)
