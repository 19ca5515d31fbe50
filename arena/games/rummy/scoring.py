"""End-of-game placings and scores of `machiavelli-rummy`, pure functions of the state.

The winner (empty hand) places first; everyone else by hand penalty, lowest first (ace 11,
10/J/Q/K 10, 2-9 face value, joker 25), equal penalties sharing a place. A score is minus
the hand penalty, so higher is better and the winner scores 0.
"""

from __future__ import annotations

from arena.core.game import Outcome, Termination, placings_from_keys
from arena.games.rummy.cards import hand_penalty
from arena.games.rummy.state import RummyState


def penalties(state: RummyState) -> list[int]:
    """Return every seat's hand penalty."""
    return [hand_penalty(hand) for hand in state.hands]


def rounds(state: RummyState) -> int:
    """Return the number of rounds begun (a round is one move per seat)."""
    return (state.turn + state.players - 1) // state.players


def outcome(state: RummyState) -> Outcome | None:
    """Return the outcome of a finished game, else None."""
    if not state.over:
        return None
    pens = penalties(state)
    keys = [(1 if seat == state.winner else 0, -pen) for seat, pen in enumerate(pens)]
    termination = Termination.COMPLETED if state.winner is not None else Termination.BLOCKED
    details = {"turns": state.turn, "rounds": rounds(state), "penalties": pens,
               "winner": state.winner, "stock": len(state.stock),
               "table_cards": len(state.table_cards())}
    return Outcome(termination, placings_from_keys(keys), tuple(-p for p in pens), details)
