"""Jokers each suit's cards need at least: a dead-state test for the rank-by-rank programme
(`dp`).

On late-game tables (60 cards, two jokers, seven aces) about 95% of the programme's states
are dead, mostly because jokers went into early melds (or runs were left open) while the
cards above cannot be placed without more jokers than are left. This test reads each suit
alone: from a value on, the suit's cards go into its own runs (the open ones, or new ones)
or into groups. A run's jokers (gap jokers, and the extras a short run takes when it
closes) belong to its suit. A group of n natural cards holds at least 3 - n jokers, which
is at least (3 - s) / s per card when only s < 3 suits have a card of that rank; so a copy
sent to such a group counts that share (in halves of a joker: one half with two suits, two
jokers with one), and a copy sent to a group of a rank that three suits hold counts
nothing. The fewest halves each suit needs, as a function of its open runs, is a small
programme over that suit alone, solved lazily once per search.

Why it is a lower bound: in any solution each suit's decisions are steps of that suit's
programme, each run joker belongs to one suit, and each group's jokers are at least the sum
of its cards' shares. So a solution places at least half the sum over the suits, and a
state whose jokers left fall short of it is dead. Table aces may sit at value 1 or 14, so
neither end requires them here.

Imports only the standard library and this package.
"""

from __future__ import annotations

from arena.games.rummy.dp_steps import LAST, SuitRuns, card_at, suit_steps

INFINITE = 10**6


class SuitBound:
    """Per (value, suit, open runs of the suit): the fewest jokers, in halves, that the
    suit's cards need from that value on."""

    def __init__(self, required: list[int], optional: list[int], jokers: int,
                 max_jokers: int) -> None:
        self.req, self.opt = required, optional
        self.jokers, self.max_jokers = jokers, max_jokers
        self.memo: dict[tuple[int, int, SuitRuns], int] = {}
        self.shares = [self._group_share(value) for value in range(LAST + 2)]

    def need(self, value: int, suit: int, runs: SuitRuns) -> int:
        """Return the fewest halves of a joker `suit` needs from `value` on, with the open
        runs `runs` coming in (`INFINITE` when no number will do)."""
        key = (value, suit, runs)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if value > LAST + 1:
            return 0 if not runs else INFINITE
        avail = low = 0
        if value <= LAST:
            index = card_at(value, suit)
            avail = self.req[index] + self.opt[index]
            low = 0 if value in (1, LAST) else self.req[index]
        share = self.shares[value]
        best = INFINITE
        for step in suit_steps(runs, avail, low, self.jokers, self.max_jokers, value):
            cost = 2 * step.jokers + step.grouped * share
            if cost < best:
                best = min(best, cost + self.need(value + 1, suit, step.runs))
        self.memo[key] = best
        return best

    def _group_share(self, value: int) -> int:
        """Halves of a joker each natural card of a group at `value` brings at least."""
        if value >= LAST:
            return INFINITE  # aces group at value 1; nothing groups past it
        suits = sum(1 for t in range(4)
                    if self.req[card_at(value, t)] + self.opt[card_at(value, t)] > 0)
        if suits == 0 or suits >= 3:
            return 0
        if 3 - suits > self.max_jokers:
            return INFINITE
        return 2 * (3 - suits) // suits

    def total(self, value: int, suit: int, runs: tuple[SuitRuns, ...]) -> int:
        """Return the halves a state deciding `suit` at `value` needs: the suits before
        it have decided `value` already."""
        need = self.need
        return (need(value + 1 if suit > 0 else value, 0, runs[0])
                + need(value + 1 if suit > 1 else value, 1, runs[1])
                + need(value + 1 if suit > 2 else value, 2, runs[2])
                + need(value + 1 if suit > 3 else value, 3, runs[3]))
