"""The "may this seat draw?" search (`draw_when_able: false`), one hand card at a time.

A play exists when some non-empty part of the hand joins the table: the table cards and
those hand cards split into melds. Asked as one question (the hand optional), the search's
dead-state test (`dp_bound`) cannot see that a hand card must be placed: it bounds the
jokers the table alone needs, which the table, being a table, never lacks. So the search
asks, for each hand card in turn, "is there a play holding this card, among the hand cards
not yet ruled out?", the card required, the other hand cards optional. A card in no play is
in no play of any later question either, so it is dropped, and the answers together are
the first question's answer.

With the card required, the bound of `dp_bound` sees it; its prices are first tightened at
the start (`SuitBound.tighten`), which alone proves many cards out (the least jokers a
play holding the card needs exceed the jokers there are). What is left is the feasibility
search, on the cards and on their mirror by turns (as `solver.race_mirrored`).

Imports only the standard library and this package.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.rummy.cards import CARD_TYPES, INDEX, mirrored
from arena.games.rummy.dp import OutOfBudget, RankDP
from arena.games.rummy.dp_bound import NO_RUNS, UNIT
from arena.games.rummy.melds import canonical

TIGHTEN_ROUNDS = 12
"""Subgradient rounds of the bound's prices for each hand card (`SuitBound.tighten`)."""
TIGHTEN_TRIAL = 8
"""Rounds after which prices that have not raised the bound are given up, for this card
and the check's later cards (the table is the same)."""

Melds = list[tuple[str, ...]]


def _counts(cards: Sequence[str]) -> list[int]:
    pool = [0] * CARD_TYPES
    for code in cards:
        pool[INDEX[code]] += 1
    return pool


class HandCheck:
    """One check: the table cards, the hand, and the states spent so far."""

    def __init__(self, required: Sequence[str], hand: Sequence[str], max_jokers: int,
                 node_limit: int | None, turn: int, *, downwards_first: bool = False) -> None:
        self.required, self.hand = list(required), list(hand)
        self.max_jokers, self.node_limit, self.turn = max_jokers, node_limit, turn
        self.downwards_first = downwards_first
        """Give the mirror the first turn (`solver.aces_high`)."""
        self.spent = 0
        self.pricing = True
        """Whether tightening the bound's prices has paid so far in this check."""
        self.prices: list[list[int]] | None = None
        """The last card's tightened prices, where the next card's start (the table is the
        same, so they are near the next card's best)."""

    def play(self) -> Melds | None:
        """Return melds holding every table card and some hand cards; None when none do.

        Raises `OutOfBudget` past `node_limit` states in all.
        """
        left = list(self.hand)
        for card in sorted(set(self.hand), key=INDEX.__getitem__):
            rest = list(left)
            rest.remove(card)
            found = self._holding(card, rest)
            if found is not None:
                return found
            left = [c for c in left if c != card]  # no copy of it is in any play
        return None

    def _holding(self, card: str, rest: list[str]) -> Melds | None:
        """Return a play holding `card` and any of `rest`, or None when there is none:
        the bound's prices tightened first, then the table and its mirror by turns."""
        cards = [*self.required, card]
        searches = (RankDP(_counts(cards), _counts(rest), self.max_jokers),
                    RankDP(_counts([mirrored(c) for c in cards]),
                           _counts([mirrored(c) for c in rest]), self.max_jokers))
        if self.pricing and self._tighten(*searches):
            return None
        for search in searches:
            search.resume = True  # steady turns (`steady_turn`)
        turn = self.turn
        order = list(enumerate(searches))
        if self.downwards_first:
            order.reverse()
        while True:
            for flip, search in order:
                found = self._turn(search, turn)
                if found is not None:
                    # the table is the same for the next card: let the quicker way go first
                    self.downwards_first = flip == 1
                    return [canonical([mirrored(c) for c in meld] if flip else meld)
                            for meld in search.melds()] if found else None
            turn = steady_turn(turn)

    def _tighten(self, up: RankDP, down: RankDP) -> bool:
        """Tighten the prices (`tighten_pair`); whether the card is in no play."""
        dead, self.pricing = tighten_pair(up, down, self.prices)
        if up.suit_bound is not None:
            self.prices = up.suit_bound.price
        return dead

    def _turn(self, search: RankDP, turn: int) -> bool | None:
        """Give `search` a turn: whether a play holding the card exists, None when the
        turn ended first. Raises `OutOfBudget` when no state is left."""
        step = turn if self.node_limit is None else min(turn, self.node_limit - self.spent)
        if step <= 0:
            raise OutOfBudget
        search.node_limit = search.nodes + step
        before = search.nodes
        try:
            return search.feasible()
        except OutOfBudget:
            return None
        finally:
            self.spent += search.nodes - before


def steady_turn(turn: int) -> int:
    """Return the turn after `turn` in a steady race (`solver.race_mirrored`,
    `HandCheck`): an eighth more. Steady so that the quicker way costs little more than
    twice its states (bench/rummy.py's draw check, with the races resumed: p99 4,492 ->
    3,617 states, the slowest 4,858 -> 4,014; turns of a fixed size gave 3,525 and
    3,889); growing so that a turn shorter than a search's open states (which a resumed
    race visits again) cannot stall it.
    """
    return turn + max(1, turn // 8)


def tighten_pair(up: RankDP, down: RankDP, prices: list[list[int]] | None = None
                 ) -> tuple[bool, bool]:
    """Tighten the prices of the bound of `up` (from `prices` where given, else from the
    plain shares), and hand them to its mirror `down`.

    Returns (the bound alone shows there is no solution: more jokers needed than there
    are; the prices raised the bound). The searches' cached steps hold the old prices'
    bound, so they are dropped; what their memos hold stays true.
    """
    if up.suit_bound is None or down.suit_bound is None:
        return False, False
    first = up.suit_bound.total(1, 0, NO_RUNS)
    if prices is not None:
        up.suit_bound.use_prices(prices)
    bound = up.suit_bound.tighten(TIGHTEN_ROUNDS, TIGHTEN_TRIAL)
    if bound > UNIT * up.jokers:
        return True, True
    down.suit_bound.take_mirrored(up.suit_bound)
    up.prices_changed()
    down.prices_changed()
    return False, bound > first
