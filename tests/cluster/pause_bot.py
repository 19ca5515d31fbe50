"""A random bot (the same choices as sample_bots/python/random_bot.py) that, the first time
it is ever asked to act, writes its game's label and its parent's pid into the file named
by PAUSE_MARKER, then waits until its parent (the referee's process) is gone.

A test kills that process while this bot holds the game: the game is certainly lost
mid-game, on a known worker. Every later game, and the same game played again, goes on as
a random bot's would (the marker exists), so the results equal a run without the pause.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import sys

from arena.client import Bot, Request, run
from arena.protocol.messages import GameStart

PATIENCE_S = 600
"""The longest this bot waits for its parent to go (a test that never kills it fails)."""


class PauseBot(Bot):
    label = ""

    def game_start(self, start: GameStart) -> None:
        self.label = start.label

    def act(self, request: Request) -> object:
        marker = os.environ["PAUSE_MARKER"]
        if not os.path.exists(marker):
            parent = os.getppid()
            with open(marker + ".tmp", "w") as f:
                f.write(f"{self.label} {parent}\n")
            os.rename(marker + ".tmp", marker)
            with contextlib.suppress(ProcessLookupError):  # gone already: nothing to wait for
                gone = os.pidfd_open(parent)  # readable once that process has exited
                if os.getppid() == parent:  # not replaced by a new process with its pid
                    select.select([gone], [], [], PATIENCE_S)
            sys.exit(0)
        rng: random.Random = self.rng
        return rng.choice(request.options) if request.options else None


if __name__ == "__main__":
    run(PauseBot(), name="pause", version="1.0")
