"""A `machiavelli-rummy` bot built on the table solver: it goes out as soon as the solver
finds a way, else plays the cheap move placing the most points, else the solver's rebuild
of the table, and draws only when no play exists.

Run by the referee::

    arena play machiavelli-rummy --bot s="python sample_bots/python/rummy_solver_bot.py" ...

The search gets at most a third of the move time (and never more than 0.5 s); when it runs
out, the best cheap move found so far is played.
"""

from __future__ import annotations

from arena.client import Request, run
from arena.core.game import Json
from arena.games.rummy.actions import action_to_wire
from arena.games.rummy.strategy import solver_policy


def act(request: Request) -> Json:
    """Return the policy's move (see `arena.games.rummy.strategy`)."""
    view, context = request.observation, request.context
    budget = min(0.5, max(0.02, request.move_ms / 3000))
    action = solver_policy(view["hand"], view["table"],
                           int(context.get("max_jokers_per_meld", 1)), int(view["stock"]),
                           keep_table=bool(context.get("must_open_from_hand", False)),
                           time_limit=budget)
    return action_to_wire(action)


if __name__ == "__main__":
    run(act, name="rummy-solver", version="1.0")
