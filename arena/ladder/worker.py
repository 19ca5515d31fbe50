"""What a ladder's worker process runs before its referee: it must die with the run.

Kept apart from `arena.ladder.run` so that a worker process, which unpickles this factory,
imports nothing but the referee it needs (no numpy, no rating code).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from arena.referee.spec import BotSpec, FaultPolicy, TimeControl

if TYPE_CHECKING:  # the runner imports the rating code, which a worker does not need
    from arena.tournament.runner import RefereeFactory, RefereeLike

WORKERS_LOCK = "workers.lock"
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal the kernel sends this process when its parent dies."""


class WorkerReferee:
    """The referee factory of a ladder's workers: in the worker process, take the shared
    workers lock and ask for SIGTERM when the run dies, then build the real referee."""

    def __init__(self, directory: Path, make: RefereeFactory) -> None:
        self.directory, self.make = directory, make
        self.run_pid = os.getpid()
        """The run's process (built there, called in a worker it starts)."""

    def __call__(self, bots: Sequence[BotSpec], time_control: TimeControl,
                 faults: FaultPolicy, workdir: Path) -> RefereeLike:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if not _child_of(self.run_pid):  # the run died before the request took effect
            raise SystemExit(0)
        held = open(self.directory / WORKERS_LOCK, "a")  # noqa: SIM115 - for the worker's life
        fcntl.flock(held, fcntl.LOCK_SH)
        _HELD.append(held)
        return self.make(bots, time_control, faults, workdir)


def _child_of(run_pid: int) -> bool:
    """Whether this worker still belongs to the run: a child of the run's fork server
    (`arena.tournament.workers.worker_context`), which exits when the run does, so that
    the SIGTERM asked for above still comes; or, started otherwise, of the run itself."""
    parent = os.getppid()
    if parent == run_pid:
        return True
    try:  # /proc/PID/stat: "pid (name) state ppid ..."; a name may hold spaces or ")"
        fields = Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return fields[1:2] == [str(run_pid)]


_HELD: list[IO[str]] = []
"""The workers lock, held open in a worker process until it exits."""
