"""Bot processes: spawn in their own session, capture output to a capped log, stop for good.

A bot runs in its own process group (so stopping it kills its children too) and, on Linux,
with PR_SET_PDEATHSIG so that it dies with the referee even when the referee is SIGKILLed.
Its stdout and stderr go through a pipe drained by a thread that writes at most `log_cap`
bytes to the log and discards the rest: a flooding bot neither blocks nor fills the disk.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

log = logging.getLogger("arena.referee.process")

PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_LIVE: set[BotProcess] = set()
"""Every process not yet stopped, killed at interpreter exit whatever happened."""

_WATCHDOG_CODE = """
import os, signal, sys
groups = set()
for line in sys.stdin:
    word = line.strip()
    if word.startswith("-"):
        groups.discard(int(word[1:]))
    elif word:
        groups.add(int(word))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""
_watchdog: subprocess.Popen[bytes] | None = None


def _watch(line: str) -> None:
    """Tell the watchdog about a process group (`123`) or that it is gone (`-123`).

    The watchdog is a tiny process that kills every group it still knows of when the
    referee's end of its pipe closes, that is when the referee exits or is killed (even by
    SIGKILL): the parent-death signal reaches a bot, the watchdog also reaches its children.
    """
    global _watchdog
    if _watchdog is None or _watchdog.poll() is not None:
        _watchdog = subprocess.Popen([sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE],
                                     stdin=subprocess.PIPE, start_new_session=True)
    assert _watchdog.stdin is not None
    try:
        _watchdog.stdin.write(f"{line}\n".encode())
        _watchdog.stdin.flush()
    except OSError:
        log.warning("the process watchdog is gone; bots may outlive a killed referee")


def _child_setup(parent: int) -> Callable[[], None]:
    def setup() -> None:  # runs in the child between fork and exec
        if _LIBC is not None:
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the referee died before prctl took effect
                os._exit(1)
    return setup


def _drain(pipe: IO[bytes], path: Path, cap: int) -> None:
    with path.open("ab") as out:
        written = out.tell()
        while chunk := pipe.read1(1 << 16):  # type: ignore[attr-defined]
            if written < cap:
                part = chunk[: cap - written]
                out.write(part)
                written += len(part)
                if written >= cap:
                    out.write(f"\n[arena: log capped at {cap} bytes; the rest is discarded]\n"
                              .encode())
                out.flush()
    pipe.close()


class BotProcess:
    """One running bot process and the thread draining its output."""

    def __init__(self, name: str, cmd: Sequence[str], env: Mapping[str, str], cwd: str | None,
                 log_path: Path, log_cap: int) -> None:
        """Start the process.

        Raises:
            OSError: the command cannot be started (not found, not executable, bad cwd).
        """
        self.name = name
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._proc = subprocess.Popen(
            list(cmd), cwd=cwd, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_child_setup(os.getpid()))
        _LIVE.add(self)
        _watch(str(self._proc.pid))
        assert self._proc.stdout is not None
        self._drainer = threading.Thread(target=_drain, args=(self._proc.stdout, log_path, log_cap),
                                         name=f"log-{name}", daemon=True)
        self._drainer.start()
        log.info("%s: started pid %d: %s", name, self._proc.pid, " ".join(cmd))

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self._proc.pid

    def alive(self) -> bool:
        """Return whether the process is still running."""
        return self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit status once it ended (negative: killed by that signal)."""
        return self._proc.poll()

    def wait(self, seconds: float) -> bool:
        """Wait for the process to end; return whether it did."""
        try:
            self._proc.wait(timeout=max(0.0, seconds))
        except subprocess.TimeoutExpired:
            return False
        return True

    def signal_group(self, signum: int) -> None:
        """Send a signal to the whole process group (children included)."""
        try:
            os.killpg(self._proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already gone

    def reap(self) -> None:
        """Kill what is left of the group, collect the exit status, close the log."""
        self.signal_group(signal.SIGKILL)
        self._proc.wait()
        self._drainer.join(timeout=2.0)
        if self in _LIVE:
            _LIVE.discard(self)
            _watch(f"-{self._proc.pid}")
        log.info("%s: pid %d ended with status %s", self.name, self._proc.pid,
                 self._proc.returncode)


def stop_all(processes: Sequence[BotProcess], grace_s: float) -> None:
    """Stop processes together: wait `grace_s` for them to exit, then SIGTERM, then SIGKILL.

    The caller has already sent them `shutdown`.
    """
    for step in (None, signal.SIGTERM):
        if step is not None:
            for proc in processes:
                if proc.alive():
                    proc.signal_group(step)
        deadline = time.monotonic() + grace_s
        for proc in processes:
            proc.wait(deadline - time.monotonic())
    for proc in processes:
        proc.reap()


@atexit.register
def _kill_leftovers() -> None:
    for proc in list(_LIVE):
        proc.reap()
