"""Seat assignment: who sits in which seat, so that every bot holds every seat about equally.

Seat advantage is real in card games (who drafts first, who plays last), so a schedule must
spread each bot's games evenly over the seats. For a fixed schedule this is an equitable
edge colouring of the bipartite bots x games graph (de Werra: one balanced within one
always exists), per table size; `balance` reaches it by swapping seats along alternating
walks.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence


def seat_counts(games: Iterable[Sequence[str]]) -> dict[str, Counter[int]]:
    """Return, per bot, how many times it held each seat."""
    counts: dict[str, Counter[int]] = defaultdict(Counter)
    for seating in games:
        for seat, bot in enumerate(seating):
            counts[bot][seat] += 1
    return counts


def rotations(order: Sequence[str], repeats: int) -> list[tuple[str, ...]]:
    """Return `repeats` seatings of one table, each rotating the seats by one more place.

    With `repeats` a multiple of the table size every bot holds every seat equally often.
    """
    k = len(order)
    return [tuple(order[(r + i) % k] for i in range(k)) for r in range(repeats)]


def balance(games: list[list[str]], max_walks: int | None = None) -> None:
    """Permute seats within games (in place) until, for every table size, each bot's seat
    counts in the games of that size are balanced within one.

    Games of each size are balanced on their own (a seat means something different at a
    table of 3 than at a table of 4). Repeatedly takes a bot holding seat `a` at least
    twice more than seat `b` and swaps it with the `b` holder of one of its `a` games; if
    that pushes the other bot out of balance, the walk continues from it. A walk can always
    continue (a bot two over in seat `a` has an unused `a` game, even the one it started
    from), so it ends at a bot it leaves within one, and each walk lowers the sum of squared
    imbalances by at least 4: the loop ends. `max_walks` bounds it anyway.
    """
    by_size: dict[int, list[int]] = defaultdict(list)
    for index, seating in enumerate(games):
        by_size[len(seating)].append(index)
    for width, indices in sorted(by_size.items()):
        _balance_size(games, indices, width, max_walks)


def _balance_size(games: list[list[str]], indices: Sequence[int], width: int,
                  max_walks: int | None) -> None:
    counts = seat_counts(games[i] for i in indices)
    by_bot: dict[str, list[int]] = defaultdict(list)
    for index in indices:
        for bot in games[index]:
            by_bot[bot].append(index)
    limit = max_walks if max_walks is not None else 20 * len(indices) + 100
    for _ in range(limit):
        found = _imbalance(counts, width)
        if found is None:
            return
        _walk(games, counts, by_bot, *found)


def _imbalance(counts: Mapping[str, Counter[int]], width: int) -> tuple[str, int, int] | None:
    for bot in sorted(counts):
        seats = counts[bot]
        for a in range(width):
            for b in range(width):
                if seats[a] - seats[b] >= 2:
                    return bot, a, b
    return None


def _walk(games: list[list[str]], counts: dict[str, Counter[int]],
          by_bot: Mapping[str, list[int]], bot: str, a: int, b: int) -> None:
    used: set[int] = set()
    current = bot
    while True:
        game = next((g for g in by_bot[current] if g not in used and games[g][a] == current),
                    None)
        if game is None:  # cannot happen (see `balance`); stop rather than loop
            return
        used.add(game)
        other = games[game][b]
        games[game][a], games[game][b] = other, current
        counts[current][a] -= 1
        counts[current][b] += 1
        counts[other][b] -= 1
        counts[other][a] += 1
        if counts[other][a] - counts[other][b] < 2:
            return
        current = other


def seat_greedily(bots: Sequence[str], counts: Mapping[str, Counter[int]]) -> tuple[str, ...]:
    """Return a seating of one table giving each bot a seat it has held least.

    Picks the (bot, seat) pair with the lowest count first; ties go to the earlier bot in
    `bots` and the lower seat, so the result is deterministic.
    """
    free_bots = list(bots)
    free_seats = list(range(len(bots)))
    seating: list[str] = [""] * len(bots)
    while free_bots:
        bot, seat = min(((b, s) for b in free_bots for s in free_seats),
                        key=lambda bs: (counts.get(bs[0], Counter())[bs[1]]
                                        - _mean(counts.get(bs[0], Counter())),
                                        bots.index(bs[0]), bs[1]))
        seating[seat] = bot
        free_bots.remove(bot)
        free_seats.remove(seat)
    return tuple(seating)


def _mean(seats: Counter[int]) -> float:
    return sum(seats.values()) / len(seats) if seats else 0.0
