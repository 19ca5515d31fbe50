"""`collector_paused`: the cyclic garbage collector held off while a search runs.

Why: the table searches allocate hundreds of thousands of short-lived tuples, lists and
dicts and free them by reference counting; none of them outlives the search in a cycle.
The collector still runs a pass every 700 allocations and, every so often, one over the
whole heap (in the referee, every object of the run). On the bench's 350 draw-check
positions those passes were ~18% of the check's CPU and most of its slowest cases (p99
87.7 -> 52.6 ms and max 149 -> 85 ms in one run, alternated position by position; see
docs/rummy.md). The searches stay the same: the same states, bounds and plays.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def collector_paused(search: Callable[P, R]) -> Callable[P, R]:
    """Run `search` with the cyclic collector off, and on again after it (however it
    ends). A search inside another, or a caller that turned the collector off itself, leaves
    it as it found it. Cycles made meanwhile are collected by the next pass after it."""
    @functools.wraps(search)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return search(*args, **kwargs)
        gc.disable()
        try:
            return search(*args, **kwargs)
        finally:
            gc.enable()
    return paused
