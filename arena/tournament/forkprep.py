"""The fork server's last preload: what every worker would otherwise do again for itself.

A worker is forked from the fork server (`workers.worker_context`), so what the server
holds when it forks is shared by every worker until written to:
- the sandbox's probes (bubblewrap, cgroups) and mask arguments (a walk of /etc), ~6.5 ms
  of CPU, are made here once, not in each;
- `gc.freeze` moves every object the preloads made into the collector's permanent
  generation: a worker's full collections then neither walk them nor write their headers,
  which would copy each page of the shared heap into every worker.
"""

from __future__ import annotations

import gc

from arena.referee import sandbox


def prepare() -> None:
    """Fill the caches the workers share, then freeze what is alive."""
    try:
        sandbox.shared_caches()
    except Exception:  # noqa: BLE001 - the server must live: each worker tries again, and says
        pass
    gc.freeze()


prepare()
