"""A strong policy built on the solver (the solver sample bot and benchmarks use it).

It goes out at once when the solver finds a play that empties the hand; otherwise it plays
the cheap move (a meld from hand or one lay-off) that places the most penalty points, and
only when there is none the solver's rebuild of the table; else it draws. (Measured against
the random policy, the cheap move first beats the solver's largest play every move: a big
rebuild hands the opponent more places to lay off.)
Imports only the standard library and this package.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.rummy.actions import Draw, Play, RummyAction
from arena.games.rummy.cards import INDEX, PENALTY
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.solver import placed_cards, solve


def _cost(table: Sequence[Sequence[str]], play: tuple[tuple[str, ...], ...]) -> tuple[int, int]:
    placed = placed_cards(table, play)
    return -sum(PENALTY[INDEX[c]] for c in placed), len(placed)


def solver_policy(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int,
                  stock: int, *, keep_table: bool = False,
                  time_limit: float | None = 0.2) -> RummyAction:
    """Return the policy's move for `hand` on `table` with `stock` cards left to draw."""
    best = solve(hand, table, max_jokers, keep_table=keep_table, node_limit=None,
                 time_limit=time_limit)
    if best is None:
        return Draw()
    if len(best.placed) == len(hand):
        return Play(best.table)
    cheap = simple_plays(hand, table, max_jokers, keep_table=keep_table)
    if cheap:
        return Play(min(cheap, key=lambda play: _cost(table, play)))
    return Play(best.table)
