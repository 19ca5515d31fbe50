"""Invariant checks shared by the machiavelli engine tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.core.game import Event
from arena.games.machiavelli.cards import deck_composition
from arena.games.machiavelli.state import Phase, State


def check_cards(state: State) -> None:
    """Every district card is in exactly one place: deck, a hand, a city, set aside, or under
    the Museum (which stands in a city while cards lie under it)."""
    seen = Counter(state.deck) + Counter(state.aside) + Counter(state.museum)
    assert not state.museum or any("museum" in city for city in state.cities), state.museum
    for hand in state.hands:
        seen.update(hand)
    for city in state.cities:
        seen.update(city)
    expected = deck_composition(list(state.rules["districts"]))
    assert seen == expected, f"cards differ: extra {seen - expected}, missing {expected - seen}"
    for seat, city in enumerate(state.cities):
        for district in set(state.beautified[seat]):
            assert state.beautified[seat].count(district) <= city.count(district)


def check_characters(state: State) -> None:
    """During a round every cast character is in exactly one place."""
    if state.phase in (Phase.DRAFT, Phase.THEATER, Phase.TURN):
        places = [*state.faceup, *state.facedown, *state.pool]
        for held in state.chars:
            places.extend(held)
        assert sorted(places) == sorted(state.cast), f"characters misplaced: {places}"


def gold_deltas(events: Sequence[Event], players: int) -> list[int]:
    """Sum the `gold` changes named by events, per seat."""
    deltas = [0] * players
    for event in events:
        for change in event.data.get("gold", ()):
            deltas[change["seat"]] += change["delta"]
    return deltas


def check_gold(before: State, after: State, events: Sequence[Event]) -> None:
    """No negative gold; each balance change is explained by the step's events."""
    assert all(g >= 0 for g in after.gold), after.gold
    assert after.tax_token >= 0
    change = [a - b for a, b in zip(after.gold, before.gold, strict=True)]
    assert change == gold_deltas(events, after.players), (change, [e.to_wire() for e in events])
    token = sum(e.data["amount"] for e in events if e.kind == "tax_paid")
    token -= sum(e.data["amount"] for e in events if e.kind == "tax_taken")
    assert after.tax_token - before.tax_token == token


def check_all(before: State, after: State, events: Sequence[Event]) -> None:
    """Run every conservation check for one step."""
    check_cards(after)
    check_characters(after)
    check_gold(before, after, events)
