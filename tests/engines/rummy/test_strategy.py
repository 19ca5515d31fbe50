"""The solver policy against the random policy, in-process and seeded: it must win clearly
more than its share (a random policy in its place would not)."""

from __future__ import annotations

import random

from arena.games.rummy import GAME
from arena.games.rummy.actions import Play
from arena.games.rummy.strategy import going_out, solver_policy


def solver_score(players: int, games: int, seed: int = 1000) -> float:
    """Play `games` games, the policy in a rotating seat, random elsewhere; return its
    wins (a shared first place counts as a share)."""
    wins = 0.0
    for index in range(games):
        state = GAME.new_game(players, {}, seed + index)
        mine = index % players
        rng = random.Random(index)
        while (decision := GAME.to_act(state)) is not None:
            seat = decision.seat
            if seat == mine:
                action = solver_policy(state.hands[seat], state.table, 1, len(state.stock))
            else:
                action = GAME.random_action(state, seat, rng)
            GAME.apply(state, seat, action)
        outcome = GAME.outcome(state)
        assert outcome is not None
        if outcome.placings[mine] == 1:
            wins += 1 / outcome.placings.count(1)
    return wins


def test_policy_clearly_beats_random_two_players() -> None:
    """20 games (about 15 s): a policy winning half its games reaches 17 wins with
    probability 1351/2^20, about 0.13%, so this cannot pass by luck."""
    assert solver_score(2, 20) >= 17


def test_policy_beats_random_four_players() -> None:
    # fair share is 3 of 12; a random policy reaches 9 with probability below 0.04%
    assert solver_score(4, 12) >= 9


def test_going_out_places_the_whole_hand() -> None:
    table = [["7H", "8H", "9H"], ["QS", "QD", "QC"]]
    play = going_out(["7S", "7D", "10H"], table, 1)
    assert isinstance(play, Play)
    assert sorted(c for m in play.table for c in m) == sorted(
        ["7H", "8H", "9H", "QS", "QD", "QC", "7S", "7D", "10H"])
    assert going_out(["7S", "7D", "10H", "2C"], table, 1) is None
