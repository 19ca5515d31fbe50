"""The engine's fast paths build exactly what the slow, obvious code would."""

from __future__ import annotations

import random

from arena.core.game import Decision, Event
from arena.games.machiavelli import GAME
from arena.games.machiavelli.actions import Action, ActionType, make, shared_wires
from arena.games.machiavelli.cards import Character
from arena.games.machiavelli.events import new_decision, private, public
from arena.games.machiavelli.turn import BUILD, DESTROY, KILL


def test_events_and_decisions_equal_normally_built_ones() -> None:
    assert public("built", seat=1, district="manor") == Event(
        "built", {"seat": 1, "district": "manor"})
    assert private(2, "drew_cards", seat=2, cards=["keep"]) == Event(
        "drew_cards", {"seat": 2, "cards": ["keep"]}, frozenset({2}))
    made = new_decision(3, "turn", ({"type": "end_turn"},), {"gathered": True})
    assert made == Decision(3, "turn", ({"type": "end_turn"},), {"gathered": True})
    assert made.to_wire() == {"seat": 3, "kind": "turn", "options": [{"type": "end_turn"}],
                              "context": {"gathered": True}}


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
