"""The cyclic collector paused while `arena.client` is imported: the import a Python bot
starts with, paid again by every bot process (a 14-worker run starts ~80).

Importing typing, msgspec and the client makes tens of thousands of objects that live as
long as the process; meanwhile the collector ran a full collection over everything each
time the heap grew by a quarter, for nothing. Once the client is imported, what is alive is
moved to the permanent generation (`gc.freeze`), so the bot's own collections during play
skip it as well, and the collector runs again as it did before. A random bot's whole life
(start, hello, one game, shutdown, exit; no sandbox, 30 alternated each) cost 28.4 against
29.1 ms of CPU; without a shutdown (which freezes the heap too) the interpreter and the
import cost 24.4 against 28.0 ms.

Imported by `arena.client` before its other imports; `resume` at the end of them.
"""

from __future__ import annotations

import gc

_WAS_ENABLED = gc.isenabled()
gc.disable()


def resume() -> None:
    """Freeze what the import made and let the collector run again (unless the bot had
    paused it itself before importing the client)."""
    gc.freeze()
    if _WAS_ENABLED:
        gc.enable()
