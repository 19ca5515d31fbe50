"""What the fork server prepares once for every worker forked from it
(`arena.tournament.forkprep`): the sandbox's probes and masks, and a frozen heap."""

from __future__ import annotations

import gc

from arena.referee import sandbox
from arena.tournament.workers import worker_context


def _inherited() -> dict[str, int]:
    """In a worker, before it does anything: what it holds of the server's."""
    return {"probe_bwrap": sandbox.probe_bwrap.cache_info().currsize,
            "enforcer": sandbox._enforcer.cache_info().currsize,
            "masks": sandbox._mask_args.cache_info().currsize,
            "frozen": gc.get_freeze_count()}


def test_a_worker_starts_with_the_servers_probes_and_frozen_heap() -> None:
    with worker_context().Pool(1) as pool:
        held = pool.apply(_inherited)
    frozen = held.pop("frozen")
    assert held == {"probe_bwrap": 1, "enforcer": 1, "masks": 1}  # none to make again
    assert frozen > 10_000  # the preloaded modules' objects: no worker's collection walks them
