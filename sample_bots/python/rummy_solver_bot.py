"""A `machiavelli-rummy` bot built on the table solver: it plays, every move, the play that
places the most hand penalty points (rebuilding the table as needed), and draws only when
no play exists.

Run by the referee::

    arena play machiavelli-rummy --bot s="python sample_bots/python/rummy_solver_bot.py" ...

The search gets at most a third of the move time (and never more than 0.5 s); when it runs
out, the best cheap move found so far is played.
"""

from __future__ import annotations

from arena.client import Request, run
from arena.core.game import Json
from arena.games.rummy.solver import solve


def act(request: Request) -> Json:
    """Return the best play found within the time bound, else a draw."""
    view, context = request.observation, request.context
    budget = min(0.5, max(0.02, request.move_ms / 3000))
    found = solve(view["hand"], view["table"], int(context.get("max_jokers_per_meld", 1)),
                  keep_table=bool(context.get("must_open_from_hand", False)),
                  node_limit=None, time_limit=budget)
    if found is None:
        return {"type": "draw"}
    return {"type": "play", "table": [list(meld) for meld in found.table]}


if __name__ == "__main__":
    run(act, name="rummy-solver", version="1.0")
