"""Hidden information: reshuffling what a seat cannot see leaves its observation unchanged;
nothing hidden leaks into an observation."""

from __future__ import annotations

import json
import random

import pytest

from arena.games.machiavelli import GAME
from arena.games.machiavelli.cards import Character
from arena.games.machiavelli.state import Phase, State


def reshuffle_hidden(state: State, seat: int, rng: random.Random) -> State:
    """Return a copy with everything `seat` cannot see shuffled."""
    other = GAME.clone(state)
    others = [s for s in range(state.players) if s != seat]
    cards = [c for s in others for c in other.hands[s]]
    rng.shuffle(cards)
    for s in others:
        n = len(other.hands[s])
        other.hands[s], cards = cards[:n], cards[n:]
    rng.shuffle(other.deck)
    revealed = {c for _, c in state.revealed}
    visible_pool = state.phase == Phase.DRAFT and GAME.to_act(state).seat == seat  # type: ignore[union-attr]
    hidden: list[Character] = list(other.facedown)
    if not visible_pool:
        hidden += other.pool
    for s in others:
        hidden += [c for c in other.chars[s] if c not in revealed]
    rng.shuffle(hidden)
    other.facedown, hidden = hidden[:len(other.facedown)], hidden[len(other.facedown):]
    if not visible_pool:
        other.pool, hidden = hidden[:len(other.pool)], hidden[len(other.pool):]
    for s in others:
        keep = [c for c in other.chars[s] if c in revealed]
        n = len(other.chars[s]) - len(keep)
        other.chars[s], hidden = keep + hidden[:n], hidden[n:]
    other.rng.seed(rng.random())
    other.cache = None
    return other


@pytest.mark.parametrize("players", (2, 3, 4, 7, 8))
def test_observation_ignores_what_the_seat_cannot_see(players: int) -> None:
    state = GAME.new_game(players, {}, players)
    policy, shuffler = random.Random(1), random.Random(2)
    checked = 0
    while (decision := GAME.to_act(state)) is not None:
        seat = shuffler.randrange(players)
        shuffled = reshuffle_hidden(state, seat, shuffler)
        assert GAME.observation(shuffled, seat) == GAME.observation(state, seat)
        checked += 1
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
    assert checked > 50


def test_no_leak_of_other_hands_or_characters() -> None:
    state = GAME.new_game(4, {}, 3)
    policy = random.Random(4)
    while (decision := GAME.to_act(state)) is not None:
        for seat in range(4):
            obs = GAME.observation(state, seat)
            text = json.dumps(obs)
            assert "rng" not in obs and "deck" not in obs and "facedown" not in text
            assert obs["hand"] == state.hands[seat]
            revealed = {c for _, c in state.revealed}
            for other in range(4):
                for c in state.chars[other]:
                    if other != seat and c not in revealed and c.wire in text:
                        # a hidden character may appear only as public knowledge
                        assert c.wire in (obs["killed"], obs["robbed"], *obs["cast"],
                                          *obs["faceup_discards"])
            assert "characters" in obs and set(obs["characters"]) == {
                c.wire for c in state.chars[seat]}
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))


PRIVATE = {"drew_cards", "own_pick", "own_discard", "characters_offered", "own_kept",
           "hand_received"}


def test_private_events_go_only_to_their_seat() -> None:
    state = GAME.new_game(4, {}, 8)
    policy = random.Random(5)
    kinds: set[str] = set()
    while (decision := GAME.to_act(state)) is not None:
        for event in GAME.apply(state, decision.seat,
                                GAME.random_action(state, decision.seat, policy)):
            if event.kind in PRIVATE:
                assert event.visible_to == frozenset({event.data["seat"]}), event
                kinds.add(event.kind)
            else:
                assert event.visible_to is None, event
    assert {"drew_cards", "own_pick", "characters_offered"} <= kinds
