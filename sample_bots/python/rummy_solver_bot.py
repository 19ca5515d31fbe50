"""A `machiavelli-rummy` bot built on the table solver: it goes out as soon as the solver
finds a way, else plays the cheap move placing the most points, else the solver's rebuild
of the table, and draws only when no play exists.

Run by the referee::

    arena play machiavelli-rummy --bot s="python sample_bots/python/rummy_solver_bot.py" ...

The search gets at most a third of the move time (and never more than 0.5 s); when it runs
out, the best cheap move found so far is played, or a draw. Under `draw_when_able: false` a
draw is illegal while any play exists, so before drawing the bot asks the rules' own
question (`required_play`, the very search the referee validates a draw with, bounded in
states) and plays what it finds: the bot never plays an illegal move. That search takes up
to ~0.2 s on the hardest tables (bench/rummy.py).
"""

from __future__ import annotations

from arena.client import Request, run
from arena.core.game import Json
from arena.games.rummy.actions import Draw, Play, action_to_wire
from arena.games.rummy.solver import required_play
from arena.games.rummy.strategy import solver_policy


def act(request: Request) -> Json:
    """Return the policy's move (see `arena.games.rummy.strategy`), always a legal one."""
    view, context = request.observation, request.context
    hand, table = view["hand"], view["table"]
    max_jokers = int(context.get("max_jokers_per_meld", 1))
    keep = bool(context.get("must_open_from_hand", False))
    budget = min(0.5, max(0.02, request.move_ms / 3000))
    action = solver_policy(hand, table, max_jokers, int(view["stock"]), keep_table=keep,
                           time_limit=budget)
    if isinstance(action, Draw) and not context.get("draw_when_able", True):
        # the budgeted search may give up on a rebuild that exists; the rules do not
        found = required_play(hand, table, max_jokers, keep_table=keep)
        if found is not None:
            action = Play(found.table)
    return action_to_wire(action)


if __name__ == "__main__":
    run(act, name="rummy-solver", version="1.0")
