"""A random bot that, at the first request of its game number $GATE_GAME (1 by default),
waits until the test opens the FIFO $GATE for writing: a test holds a run there until it
has done what must come first (close the run's stdout), with no sleep. It waits once in
all: a later process of it (a worker's own copy, a restart) finds $GATE.done and plays on."""

from __future__ import annotations

import os

from arena.client import Bot, GameStart, Request, run


class Gated(Bot):
    def __init__(self) -> None:
        self.games, self.waited = 0, False

    def game_start(self, start: GameStart) -> None:
        self.games += 1

    def act(self, request: Request) -> object:
        gate = os.environ["GATE"]
        if not self.waited and self.games >= int(os.environ.get("GATE_GAME", "1")):
            self.waited = True
            if not os.path.exists(gate + ".done"):
                with open(gate, "rb"):  # blocks until a writer opens it
                    pass
                open(gate + ".done", "w").close()
        return self.rng.choice(request.options) if request.options else None


if __name__ == "__main__":
    run(Gated(), name="gated", version="1")
