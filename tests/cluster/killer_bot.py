"""A bot that kills the process that started it (the referee's: a Dask worker) as soon as it
is asked to act: a game that no worker survives."""

from __future__ import annotations

import os
import signal

from arena.client import Request, run


def act(request: Request) -> object:
    os.kill(os.getppid(), signal.SIGKILL)
    return None


if __name__ == "__main__":
    run(act, name="killer", version="1.0")
