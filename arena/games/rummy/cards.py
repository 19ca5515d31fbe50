"""Cards of `machiavelli-rummy`: codes, the deck, penalties and integer indices.

A card travels as a short code: the rank (`A`, `2`..`10`, `J`, `Q`, `K`) followed by the
suit (`S` spades, `H` hearts, `D` diamonds, `C` clubs), e.g. `7H`, `10S`, `QD`; the joker is
`JK`. The deck holds every natural card twice (two French decks) plus the jokers. The two
copies of a card are interchangeable, so a card is just its code.

Inside the solver a card is an index: `suit * 13 + rank - 1` for naturals (0..51), 52 for
the joker. Imports only the standard library.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

SUITS = "SHDC"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = "JK"
JOKER_INDEX = 52
CARD_TYPES = 53
"""Natural card kinds (52) plus the joker."""

CODES: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS) + (JOKER,)
"""Card code by index."""
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
"""Card index by code."""

CODE_HELP = "a card is a rank A,2..10,J,Q,K followed by a suit S,H,D,C (e.g. 7H, 10S), or JK"


def is_card(code: object) -> bool:
    """Return whether `code` is a valid card code."""
    return isinstance(code, str) and code in INDEX


def rank_of(index: int) -> int:
    """Return the rank 1..13 (ace 1) of a natural card index."""
    return index % 13 + 1


def suit_of(index: int) -> int:
    """Return the suit 0..3 of a natural card index."""
    return index // 13


def natural(rank: int, suit: int) -> int:
    """Return the index of the natural card of `rank` (1..13) and `suit` (0..3)."""
    return suit * 13 + rank - 1


def penalty_of(code: str) -> int:
    """Return a card's penalty in hand: ace 11, 10/J/Q/K 10, 2-9 face value, joker 25."""
    if code == JOKER:
        return 25
    rank = rank_of(INDEX[code])
    if rank == 1:
        return 11
    return min(rank, 10)


PENALTY: tuple[int, ...] = tuple(penalty_of(code) for code in CODES)
"""Penalty by card index."""


def hand_penalty(cards: Iterable[str]) -> int:
    """Return the total penalty of some cards."""
    return sum(PENALTY[INDEX[code]] for code in cards)


def deck(jokers: int) -> list[str]:
    """Return the full deck, unshuffled: every natural card twice, then the jokers."""
    return [code for code in CODES[:JOKER_INDEX] for _ in range(2)] + [JOKER] * jokers


def mirrored(code: str) -> str:
    """Return the card at the mirror rank: 2..K become K..2 (rank r becomes 15 - r), an ace
    and a joker stay. Runs map onto runs (the ace low onto the ace high) and groups onto
    groups, so a table and its mirror have the same plays, mirrored."""
    if code == JOKER:
        return code
    index = INDEX[code]
    rank = rank_of(index)
    return code if rank == 1 else CODES[natural(15 - rank, suit_of(index))]


def sort_key(code: str) -> tuple[int, int]:
    """Order cards for display: by suit, then rank; jokers last."""
    index = INDEX[code]
    if index == JOKER_INDEX:
        return (4, 0)
    return (suit_of(index), rank_of(index))


def sorted_cards(cards: Iterable[str]) -> list[str]:
    """Return cards in display order."""
    return sorted(cards, key=sort_key)


def counts(cards: Iterable[str]) -> Counter[str]:
    """Return the multiset of some cards."""
    return Counter(cards)
