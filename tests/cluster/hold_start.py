"""A Dask worker preload that holds the worker's start: it writes `worker-PID` into the
directory named by HOLD_START, then waits there until a file `release` appears. A test
presses Ctrl-C while a LocalCluster is certainly still starting."""

from __future__ import annotations

import os
import time
from pathlib import Path


def dask_setup(worker: object) -> None:
    """Run by Dask in each worker process as it starts."""
    here = Path(os.environ["HOLD_START"])
    (here / f"worker-{os.getpid()}").write_text("")
    while not (here / "release").exists():
        time.sleep(0.01)  # a polling step: the file decides, not the time
