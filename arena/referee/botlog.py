"""A bot's output: whole lines into its capped log; past the cap, dropped in the kernel at
a bounded rate.

A bot's stdout and stderr reach the referee through one pipe, drained by a thread per bot.
Past the cap its output is still taken from the pipe, so that a bot printing a debug line
per move never blocks on a full pipe and stalls its game; but taking it costs the referee's
CPU, outside the bot's cgroup and every limit of its own: read into Python and dropped, a
bot writing without pause cost ~0.2-0.25 s of referee CPU per GiB, ~40% of a core on 2 cores,
for its whole life (found by a red-team audit). Past the cap the pipe is therefore spliced
into /dev/null (the bytes never reach user space), at most `AFTER_CAP_BYTES_S` a second in
windows of `WINDOW_S`: a bot writing faster waits on its own full pipe, a few milliseconds
a window, on its own clock; the referee's share stays ~1% of a core whatever it writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable
from typing import IO

CHUNK = 1 << 16


class BotLog:
    """A bot's log file, shared by every copy of the bot in a run (one file per bot).

    Only whole lines are written, each in one append, so copies run by different workers
    never cut each other's lines; the cap counts the file's size, so it holds for all of
    them together.
    """

    def __init__(self, path: os.PathLike[str] | str, cap: int) -> None:
        self.cap = cap
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._lock = threading.Lock()
        self.capped = False

    def write(self, data: bytes) -> None:
        with self._lock:
            if self.capped or self._fd < 0:
                return
            room = self.cap - os.fstat(self._fd).st_size
            if room <= 0 or len(data) > room:
                data = data[:max(0, room)] + (
                    f"\n[arena: log capped at {self.cap} bytes; the rest is discarded]\n"
                    .encode())
                self.capped = True
            os.write(self._fd, data)

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


AFTER_CAP_BYTES_S = 64 << 20
"""What is taken from a bot's pipe a second past the cap (a thousand times any honest bot's
line per move): spliced at ~0.16 s of CPU per GiB, ~1% of a core at the most."""

WINDOW_S = 0.01
"""The rate's window: a bot over it is held back at most this long at a time (its move
limit is 100s of ms), a 1 MiB write per move ~15 ms a move."""

PIPE_BYTES = 1 << 20
"""The pipe's size asked for once the log is capped (Linux's default is 64 KiB)."""

F_SETPIPE_SZ = 1031


class Throttle:
    """The bytes a reader may take now, `rate` a second in windows of `window` seconds.

    `clock` and `wait` (True when the reader should stop waiting for good, as
    `threading.Event.wait` returns) are parameters so that a test drives them.
    """

    def __init__(self, rate: int, window: float, wait: Callable[[float], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.share = max(1, int(rate * window))  # 0 would read as the end of the pipe
        self.window, self.wait, self.clock = window, wait, clock
        self.ends = clock() + window
        self.left = self.share
        self.free = False
        """Set once `wait` said to stop: the reader takes the rest at once (the bot ends)."""

    def allowed(self) -> int:
        """How many bytes to take next: what the window has left, after waiting out a
        window that has none."""
        if self.free:
            return PIPE_BYTES
        if self.left <= 0:
            pause = self.ends - self.clock()
            if pause > 0 and self.wait(pause):
                self.free = True
                return PIPE_BYTES
            self.ends, self.left = max(self.ends, self.clock()) + self.window, self.share
        return min(self.left, PIPE_BYTES)

    def took(self, size: int) -> None:
        self.left -= size


def discard(pipe: IO[bytes], throttle: Throttle) -> None:
    """Drop what comes through `pipe` until it ends, as fast as `throttle` allows: in the
    kernel where it can (splice into /dev/null), else read and dropped."""
    fd = pipe.fileno()
    splice = getattr(os, "splice", None)  # Linux only
    if splice is not None:
        with contextlib.suppress(OSError):  # a pipe's size above the user's limit
            fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES)
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            while size := splice(fd, null, throttle.allowed()):
                throttle.took(size)
            return
        except OSError:
            pass  # a kernel that cannot splice into /dev/null: read it below
        finally:
            os.close(null)
    while chunk := pipe.read1(min(CHUNK, throttle.allowed())):  # type: ignore[attr-defined]
        throttle.took(len(chunk))


def drain(pipe: IO[bytes], out: BotLog, stopping: threading.Event) -> None:
    """Copy the bot's whole lines into `out` until the pipe ends; past the cap, drop the
    rest at a bounded rate (`discard`) until `stopping` is set."""
    partial = b""
    while not out.capped and (chunk := pipe.read1(CHUNK)):  # type: ignore[attr-defined]
        cut = chunk.rfind(b"\n") + 1
        if cut:
            out.write(partial + chunk[:cut])
            partial = chunk[cut:]
        else:
            partial += chunk
        if len(partial) > CHUNK:  # a very long line: write it in pieces
            out.write(partial)
            partial = b""
    if out.capped:
        discard(pipe, Throttle(AFTER_CAP_BYTES_S, WINDOW_S, stopping.wait))
    elif partial:
        out.write(partial + b"\n")
    pipe.close()
    out.close()
