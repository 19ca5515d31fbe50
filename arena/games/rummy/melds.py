"""What makes a meld valid, and the canonical order a valid meld is shown in.

A meld is a group (3-4 cards of one rank, pairwise different suits) or a run (at least 3
consecutive cards of one suit; the ace is low, A-2-3, or high, Q-K-A, never both, and a run
never wraps, so K-A-2 is not a run). Jokers stand for whatever card the meld needs; their
role is implied, never declared: a meld is valid when some assignment of the jokers makes it
a group or a run. At most `max_jokers` jokers sit in one meld, and a meld needs at least one
natural card (house rule: an all-joker meld names no rank or suit).

Imports only the standard library and this package.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.rummy.cards import CODES, INDEX, JOKER, RANKS, SUITS, rank_of, suit_of

MAX_RUN = 13


def _split(cards: Sequence[str]) -> tuple[list[int], int]:
    naturals = [INDEX[code] for code in cards if code != JOKER]
    return naturals, len(cards) - len(naturals)


def _run_fits(ranks: list[int], size: int) -> list[int] | None:
    """Return the positions of the naturals (ace 1 or 14) when they fit a run of `size`."""
    options = [ranks]
    if 1 in ranks:
        options.append([14 if r == 1 else r for r in ranks])
    for positions in options:
        if max(positions) - min(positions) + 1 <= size:
            return positions
    return None


def _group_problem(naturals: list[int], size: int) -> str | None:
    if size > 4:
        return f"a group has at most 4 cards, this one has {size}"
    suits = [suit_of(i) for i in naturals]
    for suit in set(suits):
        if suits.count(suit) > 1:
            card = RANKS[rank_of(naturals[0]) - 1] + SUITS[suit]
            return f"a group needs pairwise different suits, but {card} appears twice"
    return None


def _run_problem(naturals: list[int], size: int) -> str | None:
    if size > MAX_RUN:
        return f"a run has at most {MAX_RUN} cards, this one has {size}"
    ranks = [rank_of(i) for i in naturals]
    for rank in set(ranks):
        if ranks.count(rank) > 1:
            card = RANKS[rank - 1] + SUITS[suit_of(naturals[0])]
            return f"a run holds each card once, but {card} appears twice"
    if _run_fits(ranks, size) is None:
        shown = "-".join(RANKS[r - 1] for r in sorted(ranks))
        return (f"{shown} does not make a run of {size} cards (a gap needs a joker; the ace is "
                "low A-2-3 or high Q-K-A, never both, and K-A-2 does not wrap)")
    return None


def meld_problem(cards: Sequence[str], max_jokers: int) -> str | None:
    """Return why `cards` (valid codes) are not a meld, or None when they are one."""
    size = len(cards)
    if size < 3:
        return f"a meld needs at least 3 cards, this one has {size}"
    naturals, jokers = _split(cards)
    if jokers > max_jokers:
        return f"{jokers} jokers, but at most {max_jokers} may sit in one meld"
    if not naturals:
        return "a meld needs at least one natural card"
    ranks = {rank_of(i) for i in naturals}
    suits = {suit_of(i) for i in naturals}
    if len(ranks) == 1:
        problem = _group_problem(naturals, size)
        if problem is None or len(suits) > 1:
            return problem
        # one natural kind repeated, or one rank in one suit: maybe still a run
        run = _run_problem(naturals, size)
        return None if run is None else problem
    if len(suits) == 1:
        return _run_problem(naturals, size)
    shown_ranks = ", ".join(RANKS[r - 1] for r in sorted(ranks))
    shown_suits = ", ".join(SUITS[s] for s in sorted(suits))
    return (f"not a group (ranks {shown_ranks} differ) and not a run "
            f"(suits {shown_suits} differ)")


def is_meld(cards: Sequence[str], max_jokers: int) -> bool:
    """Return whether `cards` (valid codes) form a meld."""
    return meld_problem(cards, max_jokers) is None


def canonical(cards: Sequence[str]) -> tuple[str, ...]:
    """Return a valid meld in display order: a group by suit, a run by position.

    Jokers fill a run's gaps first, then extend it upwards (downwards at the ace-high end).
    """
    naturals, _ = _split(cards)
    ranks = [rank_of(i) for i in naturals]
    if len(set(ranks)) == 1 and len(set(naturals)) == len(naturals):
        return tuple(sorted(cards, key=lambda c: INDEX[c]))
    positions = _run_fits(ranks, len(cards))
    if positions is None:
        raise ValueError(f"not a meld: {list(cards)}")
    low, high = min(positions), max(positions)
    spare = len(cards) - (high - low + 1)
    top = min(14 if low > 1 else 13, high + spare)
    low = top - len(cards) + 1
    by_position = dict(zip(positions, naturals, strict=True))
    return tuple(CODES[by_position[p]] if p in by_position else JOKER
                 for p in range(low, top + 1))
