"""A strong policy built on the solver (the solver sample bot and benchmarks use it).

1. Go out when the whole hand can join the table: the solver asked to place table and
   hand alike (a feasibility question, which stops at its first solution).
2. Otherwise shed slowly: the cheap move (a meld from hand or one lay-off) that places the
   most penalty points, keeping the jokers in hand while another move exists. A big
   rebuild empties the hand no faster in the end and hands every opponent more places to
   lay off; a joker kept is the card that completes the final rebuild.
3. With no cheap move, the solver's best rebuild; with no play at all, draw.

Measured against the random policy (tests/engines/rummy/test_strategy.py, bench/rummy.py),
the going-out check is what wins games. The searches take a node budget, so a move is a
pure function of the position (bounded time, reproducible games).
Imports only the standard library and this package.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from arena.games.rummy.actions import Draw, Play, RummyAction
from arena.games.rummy.cards import INDEX, JOKER, PENALTY
from arena.games.rummy.dp import OutOfBudget
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.solver import aces_high, placed_cards, race_mirrored, solve

OUT_NODES = 1_500
"""Search budget of the going-out check (states): a going-out play, when there is one, is
found within a few hundred states; the budget bounds the proofs that there is none."""
OUT_TURN = 500
"""States of the first turn of each direction (the table, its mirror) in the going-out
search: a late-game table one direction settles in 1,000 states may take the other
40,000 (bench/rummy.py). The mirror goes first when the table's aces are high
(`solver.aces_high`): on 608 positions of bench/rummy.py's games, 87 -> 76 past this
policy's budget, 418,000 -> 393,000 states in all."""
PLAY_NODES = 1_000
"""Search budget of a rebuild when no cheap move exists."""


def going_out(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int, *,
              node_limit: int | None = OUT_NODES, time_limit: float | None = None
              ) -> Play | None:
    """Return a play that places the whole hand, or None (none, or none found in budget)."""
    cards = [c for meld in table for c in meld] + list(hand)
    try:
        found = race_mirrored(cards, [], max_jokers, node_limit, turn=OUT_TURN,
                              deadline=_deadline(time_limit),
                              downwards_first=aces_high(table))
    except OutOfBudget:
        return None
    return None if found is None else Play(tuple(found))


def _deadline(time_limit: float | None) -> float | None:
    return None if time_limit is None else time.perf_counter() + time_limit


def _rank(table: Sequence[Sequence[str]], play: tuple[tuple[str, ...], ...]
          ) -> tuple[int, int]:
    placed = placed_cards(table, play)
    return -(JOKER in placed), sum(PENALTY[INDEX[c]] for c in placed)


def solver_policy(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int,
                  stock: int, *, keep_table: bool = False,
                  time_limit: float | None = None) -> RummyAction:
    """Return the policy's move for `hand` on `table` with `stock` cards left to draw.

    `time_limit` (seconds) bounds each search on top of the node budgets (bots); without
    it a move depends only on the position.
    """
    if not keep_table:
        out = going_out(hand, table, max_jokers, time_limit=time_limit)
        if out is not None:
            return out
    cheap = simple_plays(hand, table, max_jokers, keep_table=keep_table)
    if cheap:
        return Play(max(cheap, key=lambda play: _rank(table, play)))
    best = solve(hand, table, max_jokers, keep_table=keep_table, node_limit=PLAY_NODES,
                 time_limit=time_limit)
    return Draw() if best is None else Play(best.table)
