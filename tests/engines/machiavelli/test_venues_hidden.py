"""Hidden information of the Museum and the Theater (DECISIONS.md "Museum", "Theater"):
the cards under the Museum are never sent to any seat, whoever owns it; a Theater swap tells
its two seats their new cards and nobody else anything."""

from __future__ import annotations

import random
from collections.abc import Iterator

from arena.core.game import Event, Json
from arena.core.rng import derive_seed
from arena.games.machiavelli import GAME
from arena.games.machiavelli.actions import ActionType
from arena.games.machiavelli.state import Phase, State

from .test_hidden_info import sent

VENUES = {"district_preset": "cunning-agents"}
"""A preset with both the Museum and the Theater."""


def random_states(players: int, seed: int) -> Iterator[State]:
    """Every state of a random game with the Museum and the Theater in the deck."""
    state = GAME.new_game(players, VENUES, seed)
    policy = random.Random(derive_seed(seed, "venues"))
    while (decision := GAME.to_act(state)) is not None:
        yield state
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))


def museum_swapped(state: State) -> State | None:
    """A copy in which every card under the Museum changed places with a card near the deck's
    bottom (both face down: no seat can tell the two apart); None when the deck is short."""
    n = len(state.museum)
    if not n or len(state.deck) < 2 * n:
        return None
    other = GAME.clone(state)
    bottom = other.deck[-n:]
    other.deck[-n:], other.museum = other.museum, bottom
    other.cache = None
    return other


def test_the_cards_under_the_museum_are_sent_to_no_seat() -> None:
    checked = 0
    for players, seed in ((2, 1), (3, 2), (4, 3), (5, 4), (6, 5), (8, 6)):
        for state in random_states(players, seed):
            other = museum_swapped(state)
            if other is None:
                continue
            decision = GAME.to_act(state)
            assert decision is not None
            action = GAME.random_action(state, decision.seat, random.Random(checked))
            deck_before = len(state.deck)
            clone = GAME.clone(state)
            events = GAME.apply(clone, decision.seat, action)
            other_events = GAME.apply(other, decision.seat, action)
            drawn = sum(len(e.data["cards"]) for e in events if e.kind == "drew_cards")
            if drawn > deck_before - len(state.museum):
                continue  # the step drew down to the exchanged cards
            for seat in range(players):  # the owner included: it sees their number only
                assert sent(other_events, other, seat) == sent(events, clone, seat), (
                    f"seat {seat} can tell which cards lie under the Museum "
                    f"({decision.kind} {action.to_wire()})")
            checked += 1
    assert checked > 50


def theater_states() -> Iterator[State]:
    for index in range(60):
        players = 2 + index % 7
        for state in random_states(players, derive_seed(12, index)):
            if state.phase == Phase.THEATER:
                yield GAME.clone(state)


def hide_target_cards(state: State, target: int) -> State | None:
    """A copy in which the target's character cards changed places with face-down discards
    (a seat other than the two cannot tell them apart); None without enough discards."""
    held = state.chars[target]
    if len(state.facedown) < len(held):
        return None
    other = GAME.clone(state)
    other.chars[target], other.facedown[:len(held)] = (other.facedown[:len(held)],
                                                      list(held))
    other.cache = None
    return other


def until_called(events: list[Event]) -> list[Event]:
    """The events of the swap itself: the calls that follow reveal characters to everyone,
    as they would without a Theater."""
    calls = [i for i, e in enumerate(events) if e.kind == "character_called"]
    return events[:calls[0]] if calls else events


def seen(events: list[Event], seat: int) -> list[Json]:
    return [e.to_wire() for e in events if e.visible(seat)]


def test_a_theater_swap_tells_the_others_nothing() -> None:
    checked, players_seen = 0, set()
    for state in theater_states():
        decision = GAME.to_act(state)
        assert decision is not None and decision.kind == "theater"
        owner = decision.seat
        for action in GAME.legal_actions(state):
            if action.type is not ActionType.THEATER:
                continue
            target = int(str(action.seat))
            other = hide_target_cards(state, target)
            if other is None:
                continue
            events = until_called(GAME.apply(GAME.clone(state), owner, action))
            other_events = until_called(GAME.apply(other, owner, action))
            for seat in set(range(state.players)) - {owner, target}:
                assert seen(other_events, seat) == seen(events, seat), (
                    f"seat {seat} learns something of the Theater swap of seats {owner} and "
                    f"{target} ({action.to_wire()})")
                checked += 1
            players_seen.add(state.players)
    assert checked > 50 and {3, 4, 8} <= players_seen


def test_the_two_seats_of_a_theater_swap_learn_their_new_cards() -> None:
    swaps = 0
    for state in theater_states():
        decision = GAME.to_act(state)
        assert decision is not None
        owner = decision.seat
        swap = next(a for a in GAME.legal_actions(state) if a.type is ActionType.THEATER)
        target = int(str(swap.seat))
        before = [list(held) for held in state.chars]
        events = GAME.apply(state, owner, swap)
        for seat, counterpart in ((owner, target), (target, owner)):
            told = [e.data for e in events if e.kind == "own_swap" and e.visible(seat)]
            assert told == [{"seat": seat, "gave": told[0]["gave"],
                             "received": told[0]["received"], "other": counterpart}]
            gained = set(state.chars[seat]) - set(before[seat])
            assert {c.wire for c in gained} == {told[0]["received"]}
            assert told[0]["received"] in [c.wire for c in before[counterpart]]
            assert GAME.observation(state, seat)["characters"] == [
                c.wire for c in state.chars[seat]]
        for seat in set(range(state.players)) - {owner, target}:
            assert not [e for e in events if e.kind == "own_swap" and e.visible(seat)]
        swaps += 1
    assert swaps > 20
