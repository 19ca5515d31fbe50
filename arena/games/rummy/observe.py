"""What one seat may know: the only place where `machiavelli-rummy` hides information.

A seat sees its own hand, the table, every hand size, the stock size, whose move it is and
the public counters. Never: other hands, the stock's cards or order, the generator.
"""

from __future__ import annotations

from arena.core.game import Json
from arena.games.rummy.state import RummyState


def observation(state: RummyState, seat: int) -> dict[str, Json]:
    """Return `seat`'s view of the game."""
    return {
        "seat": seat,
        "hand": list(state.hands[seat]),
        "table": [list(meld) for meld in state.table],
        "hand_sizes": [len(hand) for hand in state.hands],
        "stock": len(state.stock),
        "to_move": None if state.over else state.to_move,
        "dealer": state.dealer,
        "turn": state.turn,
        "passes": state.passes,
        "opened": list(state.opened),
        "over": state.over,
        "winner": state.winner,
    }
