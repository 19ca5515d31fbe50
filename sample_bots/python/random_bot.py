"""A bot that picks uniformly among the options of every request.

Run by the referee (`arena play machiavelli --bot r="python sample_bots/python/random_bot.py"`)
or by hand with --endpoint and --token.
"""

from __future__ import annotations

import random

from arena.client import Request, run


def act(request: Request) -> object:
    if request.options:
        return random.choice(request.options)
    return None  # a free-form decision: the referee plays the default and counts a fault


if __name__ == "__main__":
    run(act, name="random", version="1.0")
