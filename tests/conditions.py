"""Waiting in tests: for a condition, never for a fixed time.

The deadline is generous on purpose: it only fails a test whose condition never comes
(a busy machine makes things slow, not wrong).
"""

from __future__ import annotations

import signal
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
        time.sleep(0.01)  # a polling step between checks (the condition decides, not time)


def interruptible() -> None:
    """`preexec_fn` for a child a test will interrupt: SIGINT as a terminal's Ctrl-C gives it.

    A shell runs a background job with SIGINT ignored, and an ignored signal stays ignored
    across exec (Python then installs no KeyboardInterrupt handler): a suite started in the
    background would see its children shrug off the SIGINT the test sends.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
