"""Waiting in tests: for a condition, never for a fixed time.

The deadline is generous on purpose: it only fails a test whose condition never comes
(a busy machine makes things slow, not wrong).
"""

from __future__ import annotations

import time
from collections.abc import Callable

PATIENCE_S = 300.0
"""How long a condition may take on a machine kept busy by other work."""


def wait_until(condition: Callable[[], object], what: str,
               patience_s: float = PATIENCE_S) -> None:
    """Poll `condition` until it is true; fail with `what` if it never is."""
    deadline = time.monotonic() + patience_s
    while not condition():
        assert time.monotonic() < deadline, f"{what}: still not so after {patience_s:.0f} s"
        time.sleep(0.01)
