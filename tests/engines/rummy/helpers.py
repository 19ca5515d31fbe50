"""Shared helpers for the rummy tests: scenarios as data and the card-conservation check."""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.games.rummy import GAME
from arena.games.rummy.cards import deck
from arena.games.rummy.state import RummyState


def scenario(hands: list[list[str]], table: list[list[str]], stock: list[str] | None = None,
             to_move: int = 0, **rules: Any) -> RummyState:
    """Return a hand-written state (a rule scenario as data)."""
    players = len(hands)
    resolved = GAME.resolve_rules(players, rules)
    return GAME.from_json({
        "players": players, "rules": resolved, "hands": hands,
        "stock": stock if stock is not None else ["2C", "3C"], "table": table,
        "dealer": (to_move - 1) % players, "to_move": to_move,
    })


def all_cards(state: RummyState) -> Counter[str]:
    """Return the multiset of every card in the game: stock, hands and table."""
    total = Counter(state.stock) + Counter(state.table_cards())
    for hand in state.hands:
        total += Counter(hand)
    return total


def full_deck(state: RummyState) -> Counter[str]:
    """Return the multiset the game was dealt from."""
    return Counter(deck(int(state.rules["jokers"])))
