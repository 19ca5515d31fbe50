"""Determinism: same seed and actions give identical events and observations; another seed
gives another deal."""

from __future__ import annotations

import random

import pytest

from arena.core.game import Json
from arena.games.machiavelli import GAME


def trace(players: int, seed: int, rules: dict[str, Json] | None = None) -> list[object]:
    state = GAME.new_game(players, rules or {}, seed)
    policy = random.Random(99)
    out: list[object] = [GAME.observation(state, s) for s in range(players)]
    while (decision := GAME.to_act(state)) is not None:
        action = GAME.random_action(state, decision.seat, policy)
        events = GAME.apply(state, decision.seat, action)
        out.append([(e.to_wire(), e.visible_to) for e in events])
        out.append(GAME.observation(state, decision.seat))
    outcome = GAME.outcome(state)
    assert outcome is not None
    out.append(outcome.to_json())
    return out


@pytest.mark.parametrize("players", (2, 4, 7))
def test_same_seed_same_game(players: int) -> None:
    assert trace(players, 5) == trace(players, 5)


def test_another_seed_another_deal() -> None:
    deals = {tuple(map(tuple, GAME.to_json(GAME.new_game(4, {}, seed))["hands"]))
             for seed in range(5)}
    assert len(deals) == 5
    crowns = {GAME.new_game(4, {}, seed).crown for seed in range(40)}
    assert crowns == {0, 1, 2, 3}
