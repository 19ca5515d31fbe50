"""Benchmark the machiavelli engine: 4-player random play on one core.

Prints the mean time per decision cycle (to_act + observation for the acting seat + validate +
apply), split by decision kind, and games per second. Figures only, no asserts.
Run: .venv/bin/python bench/engine.py [games]
"""

from __future__ import annotations

import random
import sys
import time
from collections import defaultdict

from arena.games.machiavelli import GAME


def main(games: int = 300, players: int = 4) -> None:
    """Play `games` random games and print the timings."""
    per_kind: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    cycles = 0
    clock = time.perf_counter
    start = clock()
    for seed in range(games):
        state = GAME.new_game(players, {}, seed)
        policy = random.Random(seed)
        while True:
            t0 = clock()
            decision = GAME.to_act(state)
            if decision is None:
                break
            GAME.observation(state, decision.seat)
            action = GAME.random_action(state, decision.seat, policy)
            GAME.validate(state, decision.seat, action)
            GAME.apply(state, decision.seat, action)
            entry = per_kind[decision.kind]
            entry[0] += clock() - t0
            entry[1] += 1
            cycles += 1
        GAME.outcome(state)
    elapsed = clock() - start
    print(f"machiavelli, {players} players, {games} random games on one core")
    print(f"  games/s:              {games / elapsed:8.1f}")
    print(f"  decisions per game:   {cycles / games:8.1f}")
    print(f"  mean us per cycle:    {1e6 * elapsed / cycles:8.2f}  (incl. new_game and outcome)")
    for kind, (seconds, count) in sorted(per_kind.items(), key=lambda kv: -kv[1][1]):
        print(f"  {kind:18s} {1e6 * seconds / count:8.2f} us  x {int(count)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
