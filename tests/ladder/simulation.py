"""A simulated ladder without processes: bots of known strength, Plackett-Luce outcomes,
tables from the ladder's matchmaking or drawn uniformly at random; the rank correlation of
the final batch fit with the true strengths (used by a test and bench/ladder.py)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from arena.ladder import rating
from arena.ladder.matchmaking import Entrant, plan_round
from arena.ladder.store import Belief


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (no ties expected)."""
    def ranks(values: Sequence[float]) -> list[int]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0] * len(values)
        for rank, i in enumerate(order):
            out[i] = rank
        return out
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb, strict=True)) / (n * (n * n - 1))


def play(seating: Sequence[str], strength: dict[str, float],
         rng: random.Random) -> list[tuple[str, int]]:
    """One game: placings drawn by Plackett-Luce (Gumbel noise on the log-strengths)."""
    noisy = {b: strength[b] - math.log(-math.log(rng.random() or 1e-12)) for b in seating}
    order = sorted(seating, key=lambda b: -noisy[b])
    return [(b, order.index(b) + 1) for b in seating]


def simulate(bots: int, games: int, seats: int, *, matchmaking: bool, seed: int,
             batch: int = 8, spread: float = 2.0) -> float:
    """Return the Spearman correlation of the fitted ratings with the true strengths after
    `games` games among `bots` bots of strengths evenly spaced over `spread` (log units)."""
    rng = random.Random(f"sim:{seed}")
    names = [f"b{i:02d}" for i in range(bots)]
    true = dict(zip(names, rng.sample([spread * i / (bots - 1) for i in range(bots)], bots),
                    strict=True))
    beliefs: dict[str, Belief] = {}
    played: list[list[tuple[str, int]]] = []
    number = 0
    while len(played) < games:
        number += 1
        tables = min(batch, games - len(played))
        if matchmaking:
            entrants = [Entrant(n, b.mu, b.sigma, b.games, b.seats) for n in names
                        for b in [beliefs.get(n) or rating.fresh(seats)]]
            seatings = plan_round(entrants, tables, seats, 0.1, seed, number)
        else:
            seatings = [tuple(rng.sample(names, seats)) for _ in range(tables)]
        results = [play(s, true, rng) for s in seatings]
        beliefs = rating.absorb(beliefs, results, seats)
        played.extend(results)
    fitted = rating.fit(played, {})
    return spearman([true[n] for n in names], [fitted[n][0] for n in names])
