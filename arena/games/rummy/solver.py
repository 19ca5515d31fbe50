"""The table solver: find a legal play, and the best one, for a hand and a table.

A play rebuilds the whole table: every table card must end in a valid meld, and any subset
of the hand may join them. The best play places the most hand penalty points (so a joker,
25, is worth placing before an ace, 11).

The search is the rank-by-rank dynamic programme of `dp` (van Rijn, Takes & Vis): the
table cards are the required pool, the hand the optional one; the melds of the best
solution are rebuilt from the memo and shown in canonical order. Bots may give it a
deadline (`time_limit`); past it, `solve` falls back to the best cheap move
(`moves.simple_plays`) and says the answer is not proven optimal.

The `draw_when_able: false` check (`required_play`) asks less: is there any play? It is a
feasibility search on the table and on its mirror by turns: for a hand of one or two
different cards, card by card with the card required (`check`), else the whole hand at
once (`RankDP.gains`); stopped after `CHECK_NODES` states in all so that the referee's
time never threatens a bot's clock; a position it cannot settle within them is one where
the seat may draw (the engine stays deterministic: a bound in states, not seconds).

Imports only the standard library and this package.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.rummy.cards import CARD_TYPES, CODES, INDEX, JOKER, PENALTY, mirrored
from arena.games.rummy.check import HandCheck, steady_turn
from arena.games.rummy.dp import OutOfBudget, RankDP
from arena.games.rummy.dp_steps import NEG
from arena.games.rummy.melds import canonical
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.paused_gc import collector_paused

MIRROR_TURN = 1_000
"""States of the first turn of each direction in the feasibility search (`race_mirrored`).
The quicker direction is not known in advance, and the other one's first turn is lost:
on bench/rummy.py's 349 positions 4,000 gave p99 6,511 states and max 6,730, 1,000 (with
500 a card) 4,844 and 6,556."""
CARD_BY_CARD = 2
"""Hands of at most this many different cards are searched card by card (`check`); the
larger ones as a whole (`race_mirrored`). Measured on bench/rummy.py's positions: card by
card, one or two cards settled 10 of the 11 positions the whole-hand search left unsettled
and spent 97,000 states where it spent 244,000; with three or more, the cards without a
play cost more than the whole hand's search (5,400 ms against 4,800 on 286 positions, one
position unsettled at four)."""
CARD_TURN = 500
"""States of the first turn of each direction in each hand card's search (`check`)."""
CHECK_NODES = 10_000
"""States the "may this seat draw?" search may visit, both directions (and every hand card)
together: about 0.1-0.2 s of CPU at most on a loaded 2-core machine (the goal: never
threaten a bot's clock). On the 335-349 positions of bench/rummy.py's 12 real games that
need a search (no cheap move), none is left unsettled (1-5 by the whole-hand search, 11 of
354 before the card-by-card search and the priced bound; 26-30 before the dead-state test
of `dp_bound` and the mirror); bench/rummy.py prints the distribution and how many are
left unsettled."""


@dataclass(frozen=True, slots=True)
class Solution:
    """A play: the complete new table and what it places from the hand."""

    table: tuple[tuple[str, ...], ...]
    placed: tuple[str, ...]
    value: int
    """Hand penalty points placed."""
    optimal: bool
    """True when the search finished, so no play places more points."""
    nodes: int = 0


def _counts(cards: Sequence[str]) -> list[int]:
    pool = [0] * CARD_TYPES
    for code in cards:
        pool[INDEX[code]] += 1
    return pool


def search_table(required: Sequence[str], optional: Sequence[str], max_jokers: int,
                 node_limit: int | None = None, deadline: float | None = None
                 ) -> tuple[int, list[tuple[str, ...]], int] | None:
    """Partition `required` plus a subset of `optional` into melds, maximising the subset.

    Returns (points placed, melds in canonical order, states searched) or None when
    `required` alone cannot be placed. Raises `dp.OutOfBudget` past a bound.
    """
    search = RankDP(_counts(required), _counts(optional), max_jokers, node_limit, deadline)
    value = search.solve()
    if value <= NEG:
        return None
    melds = [canonical(meld) for meld in search.melds()]
    return value, melds, search.nodes


@collector_paused
def solve(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int, *,
          keep_table: bool = False, node_limit: int | None = None,
          time_limit: float | None = None) -> Solution | None:
    """Return the best play for `hand` on `table`, or None when there is none.

    `keep_table` (the opening rule) leaves the table's melds untouched and only adds melds
    made from the hand. With no bound the answer is exact; when a bound (`node_limit`
    states, `time_limit` seconds) stops the search, the best cheap move is returned with
    `optimal` False (None if there is no cheap move either).
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    required = [] if keep_table else [c for meld in table for c in meld]
    try:
        found = search_table(required, hand, max_jokers, node_limit, deadline)
    except OutOfBudget:
        return _fallback(hand, table, max_jokers, keep_table)
    if found is None or found[0] <= 0:
        return None
    value, melds, nodes = found
    new_table = [tuple(m) for m in table] + melds if keep_table else melds
    return Solution(tuple(new_table), placed_cards(table, new_table), value, True, nodes)


@collector_paused
def first_play(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int, *,
               keep_table: bool = False, node_limit: int | None = None) -> Solution | None:
    """Return some legal play, cheap moves first, else the first one a feasibility search
    meets; None exactly when no play exists.

    Raises `dp.OutOfBudget` when the search passes `node_limit` states without an answer.
    """
    cheap = simple_plays(hand, table, max_jokers, keep_table=keep_table, limit=1)
    if cheap:
        return _as_solution(table, cheap[0], optimal=False)
    if keep_table:
        return None  # only whole melds from hand, and the cheap moves hold every one
    required = [c for meld in table for c in meld]
    down = aces_high(table)
    if len(set(hand)) <= CARD_BY_CARD:
        melds = HandCheck(required, hand, max_jokers, node_limit, CARD_TURN,
                          downwards_first=down).play()
    else:
        melds = race_mirrored(required, hand, max_jokers, node_limit, turn=MIRROR_TURN,
                              downwards_first=down, steady=True)
    return None if melds is None else _as_solution(table, melds, optimal=False)


def aces_high(table: Sequence[Sequence[str]]) -> bool:
    """Return whether more of the table's aces end runs high (with a king) than low (with a
    two). The feasibility search then starts on the mirror, where they are low: on the
    bench's late-game tables with seven aces high, the mirror needed a third to a half of
    the states the table did (card by card, 29 positions of one game: 127,000 states
    upwards first, 104,000 downwards first, one more position settled)."""
    high = low = 0
    for meld in table:
        ranks = {code[:-1] for code in meld if code != JOKER}
        if "A" in ranks and len(ranks) > 1:
            high += "K" in ranks
            low += "2" in ranks
    return high > low


@collector_paused
def race_mirrored(required: Sequence[str], optional: Sequence[str], max_jokers: int,
                  node_limit: int | None, *, turn: int = MIRROR_TURN,
                  deadline: float | None = None, downwards_first: bool = False,
                  steady: bool = False) -> list[tuple[str, ...]] | None:
    """Return melds holding every `required` card and, when there are `optional` cards,
    at least one of them (the first solution met, not the best); None when there is none.

    The feasibility search on the cards and on their mirror (`cards.mirrored`) by turns of
    `turn` states, doubling, `node_limit` states in all; raises `dp.OutOfBudget` past it
    (or past `deadline`). The programme reads the values upwards; on some late-game tables
    it needs ten times the states upwards that it needs downwards, or the reverse
    (measured on the bench's positions: 14,000-57,000 states one way, 900-7,600 the
    other). Neither is known in advance, so each gets turns; what a turn settled stays in
    its memo. `downwards_first` gives the mirror the first turn.

    `steady` (the draw check): the turns grow by an eighth, not double, and each search
    takes up its own race where its last turn stopped it (`RankDP.resume`). The
    quicker way then costs little more than twice its states, where doubling turns cost
    up to three times (`steady_turn`); doubling keeps the going-out search's figures,
    whose first turn settles most positions.
    """
    searches = [RankDP(_counts(cards), _counts(held), max_jokers, None, deadline)
                for cards, held in ((required, optional), ([mirrored(c) for c in required],
                                                           [mirrored(c) for c in optional]))]
    for search in searches:
        search.resume = steady
    spent = 0
    order = list(enumerate(searches))
    if downwards_first:
        order.reverse()
    while True:
        for flip, search in order:
            step = turn if node_limit is None else min(turn, node_limit - spent)
            if step <= 0:
                raise OutOfBudget
            search.node_limit = search.nodes + step
            before = search.nodes
            try:
                found = search.gains() > 0 if optional else search.solve() > NEG
            except OutOfBudget:
                spent += search.nodes - before
                if deadline is not None and time.perf_counter() > deadline:
                    raise
                continue
            if not found:
                return None
            melds = search.melds()
            return [canonical([mirrored(c) for c in meld] if flip else meld) for meld in melds]
        turn = steady_turn(turn) if steady else 2 * turn


def required_play(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int, *,
                  keep_table: bool = False) -> Solution | None:
    """The rules' "may this seat draw?" question under `draw_when_able: false`: return a
    play the seat could make instead, or None when it may draw (no play exists, or none
    was found within `CHECK_NODES` states)."""
    try:
        return first_play(hand, table, max_jokers, keep_table=keep_table,
                          node_limit=CHECK_NODES)
    except OutOfBudget:
        return None


def _fallback(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int,
              keep_table: bool) -> Solution | None:
    plays = simple_plays(hand, table, max_jokers, keep_table=keep_table)
    if not plays:
        return None
    return max((_as_solution(table, p, optimal=False) for p in plays), key=lambda s: s.value)


def _as_solution(table: Sequence[Sequence[str]], new_table: Sequence[Sequence[str]],
                 optimal: bool) -> Solution:
    placed = placed_cards(table, new_table)
    return Solution(tuple(tuple(m) for m in new_table), placed,
                    sum(PENALTY[INDEX[c]] for c in placed), optimal)


def placed_cards(table: Sequence[Sequence[str]], new_table: Sequence[Sequence[str]]
                 ) -> tuple[str, ...]:
    """Return the cards `new_table` holds beyond `table` (the hand cards a play places)."""
    before = _counts([c for m in table for c in m])
    after = _counts([c for m in new_table for c in m])
    return tuple(CODES[i] for i in range(CARD_TYPES) for _ in range(after[i] - before[i]))
