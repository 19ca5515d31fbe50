"""Where a benchmark's processes run: `--pin CPU` or `--pin A,B` (bench/protocol.py).

`--pin CPU` puts the bench and every process it starts on one CPU. `--pin A,B` stands for a
many-core machine on two cores: the bench process (the referee, the bare ping-pong's ROUTER,
every thread they start, ZeroMQ's I/O thread included) on CPU A, and every bot process and
the echo process (with their own threads) on CPU B, sandboxed or not.

Threads and children inherit the affinity of the thread that creates them, so `apply` pins
this process's main thread before any ZeroMQ context exists (libzmq starts its I/O thread
from the thread that opens the first socket), and the bots are moved to B in the child
between fork and exec (before bubblewrap, the bot and their I/O threads exist).
`snapshot` reads back from /proc what each thread of this process and of every descendant
is allowed to run on, so that a run prints the placement that really held.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import arena.referee.process as process


class Placement(NamedTuple):
    """The CPU of the bench process (`referee`) and of the processes it starts (`bots`)."""

    referee: int
    bots: int

    @classmethod
    def parse(cls, text: str) -> Placement:
        """`CPU` (everything there) or `A,B` (the bench on A, bots and echo on B).

        Raises:
            ValueError: not one or two CPU numbers this process may use.
        """
        cpus = [int(part) for part in text.split(",")]
        if not 1 <= len(cpus) <= 2:
            raise ValueError(f"--pin takes CPU or A,B, not {text!r}")
        unknown = set(cpus) - os.sched_getaffinity(0)
        if unknown:
            raise ValueError(f"CPU {min(unknown)} is not available to this process")
        return cls(cpus[0], cpus[-1])

    @property
    def split(self) -> bool:
        """Bots on a CPU of their own."""
        return self.referee != self.bots

    def child_setup(self) -> Callable[[], None]:
        """A `preexec_fn` that moves a child to the bots' CPU."""
        bots = self.bots
        return lambda: os.sched_setaffinity(0, {bots})

    def apply(self) -> None:
        """Pin this thread (and so every thread and child it starts) to `referee`, and every
        bot the referee starts to `bots` (bench only: wraps the referee's child setup)."""
        os.sched_setaffinity(0, {self.referee})
        if not self.split:
            return
        setup, pin = process._child_setup, self.child_setup()

        def pinned(*args: Any) -> Callable[[], None]:
            inner = setup(*args)

            def run() -> None:
                pin()
                inner()
            return run
        setattr(process, "_child_setup", pinned)  # noqa: B010


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:  # the process or thread ended meanwhile
        return ""


def _threads(pid: int) -> dict[str, set[str]]:
    """Thread name -> the CPU lists its threads of that name are allowed on."""
    found: dict[str, set[str]] = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        status = dict(line.split(":\t", 1) for line in _read(task / "status").splitlines()
                      if ":\t" in line)
        if "Cpus_allowed_list" in status:
            found.setdefault(status["Name"], set()).add(status["Cpus_allowed_list"].strip())
    return found


def snapshot(labels: dict[int, str], marks: dict[str, str]) -> list[str]:
    """One line per process (this one and its descendants): its threads and their CPUs.

    A process is named by `labels` (pid -> name), else by the first of `marks` (text in its
    command line -> name) found in its command line, else by its command line's start.
    """
    lines = []
    for pid in [os.getpid(), *sorted(process.descendants(os.getpid()))]:
        threads = _threads(pid)
        if not threads:
            continue
        cmd = _read(Path(f"/proc/{pid}/cmdline")).replace("\0", " ")
        named = (name for mark, name in marks.items() if mark in cmd)
        label = labels.get(pid) or next(named, None) or " ".join(cmd.split()[:2])
        if pid == os.getpid():
            label = "this process: the referee, (a)'s ROUTER"
        where = ", ".join(f"{name} on {'/'.join(sorted(cpus))}"
                          for name, cpus in sorted(threads.items()))
        lines.append(f"  pid {pid} ({label}): {where}")
    return lines
