"""Invariants and hidden-information properties over random games with random casts and
random district sets (`cast: random`, `district_preset: random`), 2-8 players.

Every step: cards, characters and gold are conserved (gold changes explained by events);
every few steps, what a random seat cannot see is shuffled and its observation must not
change; at the end the scores equal a recomputation. Quick: 200 games; `-m slow`: 2,000.
"""

from __future__ import annotations

import random

import pytest

from arena.core.rng import derive_seed
from arena.games.machiavelli import GAME
from arena.games.machiavelli.cards import IMPLEMENTED, IMPLEMENTED_DISTRICTS
from arena.games.machiavelli.scoring import breakdown

from .helpers import check_all
from .test_hidden_info import check_swaps, reshuffle_hidden

RANDOM_RULES = {"cast": "random", "district_preset": "random"}


def play(players: int, seed: int, every: int = 7) -> tuple[set[str], set[str]]:
    """Play one checked random game; return the characters and districts it used."""
    state = GAME.new_game(players, RANDOM_RULES, seed)
    policy, shuffler = random.Random(derive_seed(seed, "policy")), random.Random(seed)
    steps = 0
    while (decision := GAME.to_act(state)) is not None:
        assert decision.options
        action = GAME.random_action(state, decision.seat, policy)
        if steps % every == 0:
            seat = shuffler.randrange(players)
            hidden = reshuffle_hidden(state, seat, shuffler)
            assert GAME.observation(hidden, seat) == GAME.observation(state, seat)
        before = GAME.clone(state)
        check_all(before, state, GAME.apply(state, decision.seat, action))
        steps += 1
        assert steps < 20_000, "game does not end"
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == tuple(breakdown(state, s)["total"] for s in range(players))
    return set(state.rules["characters"]), set(state.rules["districts"])


def soak(games: int) -> None:
    characters: set[str] = set()
    districts: set[str] = set()
    for index in range(games):
        used = play(2 + index % 7, derive_seed(12, "random-cast", index))
        characters |= used[0]
        districts |= used[1]
    # the draws reach every character and district the engine plays
    assert characters == {c.wire for c in IMPLEMENTED}
    assert districts == IMPLEMENTED_DISTRICTS


def test_random_casts_keep_every_invariant() -> None:
    soak(200)


@pytest.mark.slow
def test_random_casts_keep_every_invariant_soak() -> None:
    soak(2_000)


def test_random_casts_never_send_a_face_down_card() -> None:
    rng = random.Random(12)
    for players, seed in ((2, 1), (3, 2), (5, 3), (8, 4)):
        check_swaps(players, seed, rng, RANDOM_RULES)


PRIVATE = {"drew_cards", "own_pick", "own_discard", "characters_offered", "own_kept",
           "hand_received", "own_paid", "hand_seen", "card_lost", "card_gained",
           "card_received", "own_warrant", "own_museum", "own_swap", "own_threat"}
"""Events that name hidden cards or characters: each goes to the one seat in its `seat`."""


def test_secrets_of_the_new_characters_go_only_to_their_seat() -> None:
    kinds: set[str] = set()
    for index in range(60):
        players = 2 + index % 7
        state = GAME.new_game(players, RANDOM_RULES, derive_seed(5, index))
        policy = random.Random(index)
        while (decision := GAME.to_act(state)) is not None:
            action = GAME.random_action(state, decision.seat, policy)
            for event in GAME.apply(state, decision.seat, action):
                if event.kind in PRIVATE:
                    assert event.visible_to == frozenset({event.data["seat"]}), event
                    kinds.add(event.kind)
                else:
                    assert event.visible_to is None, event
            for seat in range(players):  # no observation holds another seat's hand
                obs = GAME.observation(state, seat)
                assert obs["hand"] == state.hands[seat]
                assert "hand" not in (obs["turn"] or {})
    assert {"hand_seen", "card_lost", "card_gained", "card_received", "own_warrant",
            "own_museum", "own_swap", "own_threat"} <= kinds
