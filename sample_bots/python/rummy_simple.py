"""The random bot's policy for `machiavelli-rummy` (free-form `move` decisions).

Usually plays a cheap move picked at random (a new meld from hand, or one hand card laid
off onto a table meld), else draws; plays whenever drawing is not allowed. Import `act`
and call it for a request of kind `move`.
"""

from __future__ import annotations

import random

from arena.client import Request
from arena.core.game import Json
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.solver import required_play

PLAY_CHANCE = 0.85


def act(request: Request, rng: random.Random | None = None) -> Json:
    """Return a legal rummy action for `request`: a random cheap play or a draw."""
    rng = rng or random.Random()
    view, context = request.observation, request.context
    hand, table = view["hand"], view["table"]
    max_jokers = int(context.get("max_jokers_per_meld", 1))
    keep = bool(context.get("must_open_from_hand", False))
    may_draw = bool(context.get("draw_when_able", True))
    plays = simple_plays(hand, table, max_jokers, keep_table=keep)
    if plays and (not may_draw or rng.random() < PLAY_CHANCE):
        return {"type": "play", "table": [list(m) for m in rng.choice(plays)]}
    if not may_draw:
        found = required_play(hand, table, max_jokers, keep_table=keep)
        if found is not None:
            return {"type": "play", "table": [list(m) for m in found.table]}
    return {"type": "draw"}
