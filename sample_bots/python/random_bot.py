"""A bot that picks uniformly among the options of every request (and, for the free-form
`machiavelli-rummy` moves, a random cheap play or a draw: see `rummy_simple.py`).

All its choices come from `rng`, the generator the client seeds from `game_start.bot_seed`:
the same game seed gives the same game. Run by the referee
(`arena play machiavelli --bot r="python sample_bots/python/random_bot.py"`) or by hand with
--endpoint and --token.
"""

from __future__ import annotations

import random

from arena.client import Request, run


def act(request: Request, rng: random.Random) -> object:
    if request.options:
        return rng.choice(request.options)
    if request.kind == "move":  # machiavelli-rummy: imported only when needed (start-up time)
        import rummy_simple

        return rummy_simple.act(request, rng)
    return None  # another free-form decision: the referee plays the default, counts a fault


if __name__ == "__main__":
    run(act, name="random", version="1.0")
