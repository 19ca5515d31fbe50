"""Random play for 2, 3 and 4 players with every invariant checked after every move:
cards conserved (stock + hands + table = the deck), table cards never return to a hand,
the state round-trips through JSON and clones evolve identically; plus determinism,
hidden-information invariance and atomic failure of illegal moves."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from arena.core.errors import IllegalAction
from arena.games.rummy import GAME
from arena.games.rummy.actions import Draw, Play, RummyAction
from arena.games.rummy.state import RummyState

from .helpers import all_cards, full_deck

MAX_MOVES = 3000


def play_checked(players: int, seed: int, rules: dict[str, object] | None = None) -> RummyState:
    state = GAME.new_game(players, rules or {}, seed)
    deck = full_deck(state)
    rng = random.Random(seed)
    for _ in range(MAX_MOVES):
        decision = GAME.to_act(state)
        if decision is None:
            break
        assert GAME.outcome(state) is None
        seat = decision.seat
        action = GAME.random_action(state, seat, rng)
        GAME.validate(state, seat, action)
        table_before = Counter(state.table_cards())
        hand_before = Counter(state.hands[seat])
        twin = GAME.from_json(json.loads(json.dumps(GAME.to_json(state))))
        GAME.apply(state, seat, action)
        GAME.apply(twin, seat, action)
        assert GAME.to_json(twin) == GAME.to_json(state)
        assert all_cards(state) == deck
        table_after = Counter(state.table_cards())
        assert not table_before - table_after, "a table card left the table"
        added = table_after - table_before
        assert not added - hand_before, "the table gained a card the mover did not hold"
        if isinstance(action, Play):
            assert Counter(state.hands[seat]) + added == hand_before
    else:
        pytest.fail(f"no end after {MAX_MOVES} moves")
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(3))
def test_random_play_conserves_cards_and_ends(players: int, seed: int) -> None:
    state = play_checked(players, seed)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.details["turns"] == state.turn
    assert sorted(outcome.placings)[0] == 1


@pytest.mark.parametrize("rules", [
    {"jokers": 0}, {"max_jokers_per_meld": 2}, {"opening": "meld-from-hand"},
    {"draw_when_able": False, "hand_size": 7},
], ids=["no-jokers", "two-jokers", "opening", "must-play"])
def test_random_play_under_options(rules: dict[str, object]) -> None:
    play_checked(3, 11, rules)


def run(seed: int, policy_seed: int) -> tuple[list[object], list[object]]:
    state = GAME.new_game(3, {}, seed)
    rng = random.Random(policy_seed)
    events: list[object] = []
    views: list[object] = []
    while (decision := GAME.to_act(state)) is not None:
        views.append(GAME.observation(state, decision.seat))
        action = GAME.random_action(state, decision.seat, rng)
        events.extend((e.kind, dict(e.data), e.visible_to)
                      for e in GAME.apply(state, decision.seat, action))
    return events, views


def test_same_seed_same_game_and_different_seed_different_deal() -> None:
    assert run(5, 1) == run(5, 1)
    assert GAME.new_game(2, {}, 5).hands != GAME.new_game(2, {}, 6).hands


def reshuffled(state: RummyState, seat: int, rng: random.Random) -> RummyState:
    """Shuffle everything `seat` cannot see: the other hands (among themselves) and the stock."""
    other = GAME.clone(state)
    hidden = list(other.stock)
    seats = [s for s in range(other.players) if s != seat]
    for s in seats:
        hidden.extend(other.hands[s])
    rng.shuffle(hidden)
    for s in seats:
        size = len(other.hands[s])
        other.hands[s], hidden = sorted(hidden[:size]), hidden[size:]
    other.stock = hidden
    other.rng = random.Random(rng.random())
    return other


@pytest.mark.parametrize("seed", range(4))
def test_observation_depends_only_on_what_the_seat_may_see(seed: int) -> None:
    state = GAME.new_game(3, {}, seed)
    rng = random.Random(seed)
    for _ in range(40):
        decision = GAME.to_act(state)
        if decision is None:
            break
        for seat in range(3):
            view = GAME.observation(state, seat)
            assert GAME.observation(reshuffled(state, seat, rng), seat) == view
            assert view["hand"] == state.hands[seat]
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, rng))


def test_no_hidden_card_leaks_into_an_observation() -> None:
    state = GAME.new_game(2, {"jokers": 0}, 4)
    view = json.dumps(GAME.observation(state, 0))
    mine = set(state.hands[0])
    for code in set(state.hands[1]) - mine:
        assert f'"{code}"' not in view


@pytest.mark.parametrize("seed", range(3))
def test_illegal_moves_fail_atomically(seed: int) -> None:
    state = GAME.new_game(2, {}, seed)
    rng = random.Random(seed)
    for _ in range(60):
        decision = GAME.to_act(state)
        if decision is None:
            break
        seat = decision.seat
        before = json.dumps(GAME.to_json(state))
        hand = state.hands[seat]
        bad: list[tuple[int, RummyAction]] = [
            (1 - seat, Draw()),
            (seat, Play(tuple(tuple(m) for m in state.table))),
            (seat, Play(((hand[0], hand[0], hand[0]),))),
            (seat, Play((*state.table, ("AS", "2S", "3S", "4S", "5S", "6S")))),
        ]
        if state.table:
            bad.append((seat, Play((*state.table[1:], (hand[0],)))))
        for who, action in bad:
            with pytest.raises(IllegalAction):
                GAME.apply(state, who, action)
            assert json.dumps(GAME.to_json(state)) == before
        GAME.apply(state, seat, GAME.random_action(state, seat, rng))
