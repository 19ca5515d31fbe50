"""A Python sample bot under a CPU meter, for bench/tournament.py's attribution.

Run as `python bench/metered_bot.py sample_bots/python/random_bot.py`: runs the bot script
as `__main__` and, when the process ends, writes one line to stderr (which the referee
keeps in the bot's log): the CPU seconds it spent until its handshake was done (start-up:
the interpreter, the imports, the hello) and in all, and how many games it played. The
meter adds nothing to the bot's work but two `getrusage` calls and a count.
"""

from __future__ import annotations

import atexit
import json
import resource
import runpy
import sys
from pathlib import Path
from typing import Any

MARK = "bench-metered-bot: "
_startup: list[float] = []
_games = [0]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _report() -> None:
    print(MARK + json.dumps({"startup": _startup[0] if _startup else _cpu(),
                             "total": _cpu(), "games": _games[0]}), file=sys.stderr, flush=True)



def main() -> None:
    # Registered before the bot's imports: exit handlers run last-registered first, so the
    # bot's own are counted; only the interpreter's teardown after them is not.
    atexit.register(_report)
    # the client of the checkout this bench belongs to, not whichever arena is installed:
    # a bench run from another checkout then measures that checkout's bots
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import arena.client

    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, script.rsplit("/", 1)[0])
    open_link = arena.client.open_link

    def metered(*args: Any, **kwargs: Any) -> Any:
        got = open_link(*args, **kwargs)
        _startup.append(_cpu())
        return got

    start_game = arena.client.start_game

    def counted(*args: Any, **kwargs: Any) -> Any:
        _games[0] += 1
        return start_game(*args, **kwargs)

    arena.client.open_link = metered
    arena.client.start_game = counted
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
