"""Rebuilding the melds of a solution of the rank-by-rank programme (`dp`).

Imports only the standard library and this package.
"""

from __future__ import annotations

from arena.games.rummy.cards import CODES, JOKER, natural
from arena.games.rummy.dp_steps import (
    CLOSE,
    EXTEND,
    GAP,
    LAST,
    MAX_RUN,
    Choice,
    Key,
    Run,
    SuitStep,
    card_at,
)
from arena.games.rummy.melds import meld_problem


class Builder:
    """Replays the chosen decisions on concrete runs and groups."""

    def __init__(self, max_jokers: int) -> None:
        self.max_jokers = max_jokers
        self.open: list[list[tuple[Run, list[str]]]] = [[] for _ in range(4)]
        self.melds: list[list[str]] = []
        self.room: list[tuple[int, int]] = []
        """(meld index, jokers it may still take)."""

    def apply(self, key: Key, choice: Choice) -> None:
        """Perform one decision taken at state `key`."""
        value, suit = key[0], key[1]
        if not isinstance(choice, SuitStep):
            for suits, used in choice[2]:
                size = len(suits) + used
                self._emit([CODES[natural(value, s)] for s in suits] + [JOKER] * used,
                           1 if size == 3 and used < self.max_jokers else 0)
            return
        code = CODES[card_at(min(value, LAST), suit)]
        runs = sorted(self.open[suit], key=lambda item: item[0])
        kept: list[tuple[Run, list[str]]] = []
        for (run, cards), action in zip(runs, choice.actions, strict=True):
            length, jokers, _ = run
            if action == CLOSE:
                need = max(0, 3 - length)
                self._emit([*cards, *[JOKER] * need], self.max_jokers - jokers - need)
            else:
                cards.append(code if action == EXTEND else JOKER)
                kept.append(((min(length + 1, 3), jokers + (action == GAP), int(action == GAP)),
                             cards))
        kept += [((1, 0, 0), [code]) for _ in range(choice.starts)]
        self.open[suit] = kept

    def _emit(self, cards: list[str], room: int) -> None:
        if room > 0:
            self.room.append((len(self.melds), room))
        self.melds.append(cards)

    def fill(self, jokers: int) -> None:
        """Spend `jokers` extra jokers on the room left, then cut runs over 13 cards."""
        for index, room in self.room:
            take = min(room, jokers)
            self.melds[index] += [JOKER] * take
            jokers -= take
        if jokers:
            raise AssertionError("no room for the extra jokers")
        self.melds = [part for meld in self.melds for part in _cut(meld, self.max_jokers)]


def _cut(cards: list[str], max_jokers: int) -> list[list[str]]:
    """Return a meld, or a run over 13 cards (both aces, or extras) cut in two valid runs.

    `cards` is a run in position order (gap jokers in place), extra jokers last, so any cut
    leaves two stretches of consecutive positions.
    """
    if len(cards) <= MAX_RUN:
        return [cards]
    for cut in range(3, len(cards) - 2):
        low, high = cards[:cut], cards[cut:]
        if meld_problem(low, max_jokers) is None and meld_problem(high, max_jokers) is None:
            return [low, high]
    raise AssertionError(f"cannot cut the run {cards}")
