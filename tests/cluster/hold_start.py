"""A Dask worker preload that holds the worker's start: it writes `worker-PID` into the
directory named by HOLD_START, then waits until a byte arrives on the FIFO `release` there
(the test writes it). A test presses Ctrl-C while a LocalCluster is certainly still
starting."""

from __future__ import annotations

import os
from pathlib import Path


def dask_setup(worker: object) -> None:
    """Run by Dask in each worker process as it starts."""
    here = Path(os.environ["HOLD_START"])
    (here / f"worker-{os.getpid()}").write_text("")
    fifo = os.open(here / "release", os.O_RDONLY)  # waits for the test's end to be open
    try:
        os.read(fifo, 1)  # waits for the byte: the test decides, no time does
    finally:
        os.close(fifo)
