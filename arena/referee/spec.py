"""What the tournament layer tells the referee: bots to start and the time control.

These values are the interface between `arena.tournament` and `arena.referee`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")
"""A bot's name, wherever it is given (a tournament or ladder file, the command line): it
names the bot's log file and is a word of command lines (`a/b` made a folder in logs/,
`../../x` wrote `x.log` outside the run's directory)."""
BOT_NAME_RULE = ("ASCII letters, digits, '_', '.', '+' or '-', beginning with a letter or "
                 "digit, at most 100 characters")


class Restart(StrEnum):
    """When a bot process is restarted."""

    NEVER = "never"
    """One process plays all its games in a row (the default: starting a bot costs ~90 ms)."""
    PER_GAME = "per-game"
    """A fresh process for every game."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot: a name and how to start it.

    `cmd` is an argv list. A first element `builtin:NAME` (e.g. `builtin:random`) names a
    bot that runs inside the referee without a process; `stdio:` prefixes a bot that
    speaks the protocol as JSON lines on stdin/stdout.
    """

    name: str
    cmd: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    restart: Restart = Restart.NEVER
    network: bool = False
    """Give the sandboxed bot the host's network (tcp bots get it anyway)."""

    @property
    def builtin(self) -> str | None:
        """The built-in policy name, or None for a bot run as a process."""
        head = self.cmd[0] if self.cmd else ""
        return head.removeprefix("builtin:") if head.startswith("builtin:") else None


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-move limit plus an optional bank, and the start-up (handshake) limit."""

    move_ms: int = 1000
    bank_ms: int = 0
    """Time over the move limit is taken from the bank; an empty bank means a timeout."""
    startup_ms: int = 10000


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    """How many faults a seat may commit in one game before it forfeits."""

    max_faults: int = 3


LOOPBACK_TCP = "tcp://127.0.0.1:0"
"""Loopback tcp on a free port, for ZeroMQ libraries that cannot reach ipc (JeroMQ)."""
