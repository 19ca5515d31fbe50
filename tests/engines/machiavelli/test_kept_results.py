"""What the engine keeps between calls or games (the outcome scored at the end, the resolved
rules and the unshuffled deck of repeated rules) equals what it would work out afresh, and
never reaches a caller as an object another caller holds too."""

from __future__ import annotations

import random

import pytest

from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.games.machiavelli import GAME, State, scoring, setup
from arena.games.machiavelli import rules as engine_rules
from arena.games.machiavelli.cards import deck_list
from arena.games.machiavelli.state import Phase

RULES: tuple[dict[str, object], ...] = ({}, {"edition": "classic"},
                                        {"cast": "random", "district_preset": "random"})


def _finished(players: int, rules: dict[str, object], seed: int) -> State:
    state = GAME.new_game(players, rules, seed)
    policy = random.Random(seed)
    while (decision := GAME.to_act(state)) is not None:
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
    assert state.phase == Phase.OVER
    return state


@pytest.mark.parametrize("rules", RULES, ids=["revised", "classic", "random"])
def test_the_kept_outcome_equals_a_fresh_scoring(rules: dict[str, object]) -> None:
    for seed in range(5):
        state = _finished(4, rules, seed)
        assert state.scored is not None
        assert GAME.outcome(state) == scoring.outcome(state)
        rebuilt = GAME.from_json(GAME.to_json(state))
        assert rebuilt.scored is None
        assert GAME.outcome(rebuilt) == GAME.outcome(state)


@pytest.mark.parametrize("rules", RULES, ids=["revised", "classic", "random"])
def test_a_caller_changing_its_outcome_changes_no_other(rules: dict[str, object]) -> None:
    state = _finished(4, rules, 3)
    clone = GAME.clone(state)
    first = GAME.outcome(state)
    assert first is not None
    expected = scoring.outcome(state)
    breakdown = first.details["breakdown"]
    assert isinstance(breakdown, list) and isinstance(breakdown[0], dict)
    breakdown[0]["total"] = -1
    breakdown.append({})
    tiebreak = first.details["tiebreak"]
    assert isinstance(tiebreak, list)
    if isinstance(tiebreak[0], list):  # classic: (district values, gold) per seat
        tiebreak[0].append(-1)
    tiebreak.clear()
    assert GAME.outcome(state) == expected
    assert GAME.outcome(clone) == expected


def test_resolved_rules_are_a_fresh_copy_for_each_caller() -> None:
    first = setup.resolve(4, {})
    characters, districts = first["characters"], first["districts"]
    assert isinstance(characters, list) and isinstance(districts, list)
    characters.clear()
    districts.append("nowhere")
    first["max_rounds"] = 1
    again = setup.resolve(4, {})
    assert again == setup._resolve(4, {})  # noqa: SLF001 - the uncached resolution
    assert again["characters"] and "nowhere" not in again["districts"]
    assert again["max_rounds"] == 60


def test_a_caller_changing_its_rules_changes_no_later_resolution() -> None:
    cast = ["assassin", "thief", "magician", "king", "bishop", "merchant", "architect",
            "warlord"]
    rules: dict[str, Json] = {"characters": cast}
    resolved = setup.resolve(4, rules)
    cast.reverse()
    cast.pop()
    fresh = ["assassin", "thief", "magician", "king", "bishop", "merchant", "architect",
             "warlord"]
    assert setup.resolve(4, {"characters": fresh}) == resolved
    with pytest.raises(ConfigError):
        setup.resolve(4, rules)  # now 7 characters: refused, not answered from the cache


@pytest.mark.parametrize("value", [True, 1.0, "1"], ids=["bool", "float", "str"])
def test_values_equal_to_valid_ones_are_still_refused(value: Json) -> None:
    assert setup.resolve(4, {"max_rounds": 1})["max_rounds"] == 1
    with pytest.raises(ConfigError):
        setup.resolve(4, {"max_rounds": value})


def test_rules_that_are_not_json_are_refused_not_kept() -> None:
    with pytest.raises(ConfigError):
        setup.resolve(4, {"characters": {"king"}})


def test_games_of_the_same_rules_share_no_list() -> None:
    one, two = GAME.new_game(4, {}, 1), GAME.new_game(4, {}, 1)
    assert GAME.to_json(one) == GAME.to_json(two)
    assert one.rules is not two.rules and one.deck is not two.deck
    assert one.rules["districts"] is not two.rules["districts"]
    assert one.rules["characters"] is not two.rules["characters"]
    assert sorted(setup._unshuffled(tuple(one.rules["districts"]))) == sorted(  # noqa: SLF001
        deck_list(one.rules["districts"]))


@pytest.mark.parametrize("players", [2, 3, 4, 7, 8])
def test_the_draft_keeps_the_decision_rules_would_build(players: int) -> None:
    state = GAME.new_game(players, {}, players)
    policy = random.Random(players)
    drafts = 0
    while (decision := GAME.to_act(state)) is not None:
        if state.phase == Phase.DRAFT:
            drafts += 1
            kept = state.cache
            assert kept is not None and kept.decision is decision
            fresh = engine_rules.legal(GAME.from_json(GAME.to_json(state)))
            assert fresh is not None
            assert (fresh.decision, fresh.actions) == (decision, kept.actions)
            assert fresh.decision.context is not decision.context
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
    assert drafts > 20
