"""The referee's roster: what it knows of each bot of a run, alarms, and the checks made
before a bot starts (kept apart from `referee.py`, which runs them)."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.core.record import ForfeitReason
from arena.core.words import count_of
from arena.referee.players import BUILTINS
from arena.referee.process import BotProcess
from arena.referee.spec import BotSpec
from arena.referee.transport import Channel

READ_LIMITS_S = 0.1
"""At most how often a game reads the limits counters of the bot it waits on."""


@dataclass
class RosterBot:
    spec: BotSpec
    token: str = ""
    process: BotProcess | None = None
    peer: bytes | None = None
    version: str = ""
    failed: ForfeitReason | None = None
    failure: str = ""
    """Why the bot could not start or connect, for its forfeits."""
    channel: Channel | None = None
    breach: str | None = None
    """The resource limit its process hit, once read (`over_limit`)."""
    next_read: float = 0.0
    """When `over_limit` may read the kernel's counters again (monotonic seconds)."""
    retired: set[str] = field(default_factory=set)
    """Tokens of its earlier processes: a hello still queued from one of them is stale."""
    former: set[bytes] = field(default_factory=set)
    """Connections of its earlier processes: a message still queued from one (a late
    answer) is stale, not another connection of this one's."""
    junk: int = 0
    """Messages its process sent before its hello that were no hello (`HELLO_JUNK`)."""

    def alive(self) -> bool:
        return self.process is not None and self.process.alive()

    def describe(self) -> str:
        """How the process ended; reads its limits afresh (it may have died of one before
        the monitor looked)."""
        if self.process is None:
            return "not running"
        if self.breach is None and not self.process.alive():
            self.breach = self.process.breach()
        return self.process.describe()

    def over_limit(self) -> str | None:
        """The limit its process hit, read from the kernel's counters at most every
        `READ_LIMITS_S`: a game asks at each reply and each wait on this bot, so the bot it
        waits on is watched, and no other.

        Why not a thread sampling every live bot: it cost each worker about 10 ms of CPU a
        second, between games too, with the 8 bots of a 4-seat run alive; on a machine with
        more workers than cores that cost grew with the worker count.
        """
        if self.breach is None and self.process is not None:
            now = time.monotonic()
            if now >= self.next_read:
                self.next_read = now + READ_LIMITS_S
                self.breach = self.process.breach()
        return self.breach

    def exceed(self, why: str) -> None:
        """Hold the bot over a limit the kernel does not count (`why`: `limit: detail`)."""
        self.breach = self.breach or why

    def recheck_limit(self) -> str | None:
        """The limit its process hit, read afresh from the kernel's counters (`over_limit`
        reads them at most every `READ_LIMITS_S`; a game's end must not wait for that)."""
        if self.breach is None and self.process is not None:
            self.breach = self.process.breach()
        return self.breach


@dataclass(frozen=True, slots=True)
class Alarm:
    """A hello or message that could be an attack, held against the bot that sent it."""

    bot: str
    kind: str
    detail: str

    def to_json(self) -> dict[str, str]:
        """Return the alarm as JSON-ready data."""
        return {"bot": self.bot, "kind": self.kind, "detail": self.detail}


ALARM_DETAIL_CHARS = 300
"""How much of an alarm's detail is kept: it may quote the bot (a claimed name of 900 KB)."""
ALARMS_KEPT = 20
"""Alarms kept of each bot between two games' records; the rest are counted (a bot saying
hello with 900 KB names over and over made a database of 54 MB)."""


class AlarmBook:
    """The alarms raised since the last game's record, each bot's first `ALARMS_KEPT`."""

    def __init__(self) -> None:
        self._fresh: list[Alarm] = []
        self._kept: dict[str, int] = {}
        self._more: dict[str, tuple[str, int]] = {}
        """bot -> (the kind of its last alarm not kept, how many were not)."""

    def add(self, bot: str, kind: str, detail: str) -> Alarm | None:
        """Record an alarm; return it, or None when it is one too many (counted only)."""
        if self._kept.get(bot, 0) >= ALARMS_KEPT:
            self._more[bot] = (kind, self._more.get(bot, ("", 0))[1] + 1)
            return None
        self._kept[bot] = self._kept.get(bot, 0) + 1
        if len(detail) > ALARM_DETAIL_CHARS:
            detail = f"{detail[:ALARM_DETAIL_CHARS]}... ({len(detail)} characters)"
        alarm = Alarm(bot, kind, printable(detail))
        self._fresh.append(alarm)
        return alarm

    def take(self) -> list[Alarm]:
        """The alarms since the last call, with one per bot saying how many were not kept."""
        fresh = self._fresh + [Alarm(bot, kind, f"{count_of(count, 'more alarm')} of this bot, "
                                                "not kept")
                               for bot, (kind, count) in self._more.items()]
        self._fresh, self._kept, self._more = [], {}, {}
        return fresh


def missing_program(program: str, cwd: str | None) -> str:
    """Say `command not found: X` before starting a bot whose program does not exist (in a
    sandbox the failure would otherwise be bubblewrap's)."""
    if os.sep not in program:
        return "" if shutil.which(program) else f"command not found: {program}"
    path = Path(cwd or ".") / program
    if not path.exists():
        return f"no such file: {program}" + (f" (in {cwd})" if cwd else "")
    if not os.access(path, os.X_OK):
        return f"not executable: {program}"
    return ""


def _last_bytes(path: Path, size: int = 4096) -> bytes:
    """The end of a bot's log (b"" when it cannot be read)."""
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - size))
            return handle.read()
    except OSError:
        return b""


VERSION_CHARS = 64
"""How much of the version a bot states in its hello is kept (it is stored with every game)."""


def printable(text: str, limit: int | None = None) -> str:
    """A bot's text made safe for a terminal (and cut to `limit` characters): control and
    format characters escaped (`\x1b`), since the terminal would obey them: a bot's log shown
    in an error, or a version in a table, could clear the organiser's screen."""
    text = text if limit is None else text[:limit]
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\t" else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if unicodedata.category(char) == "Zs":  # a space of another width: shown as a space
        return " "
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def log_tail(path: Path, lines: int = 5) -> str:
    """The last lines of a bot's log, to show why it could not start; led by the line that
    names the cause (`cause_line`) where that one is further up."""
    said = _last_bytes(path).decode("utf-8", "replace").splitlines()
    text = said[-lines:]
    cause = cause_line(said)
    if cause and not any(cause.startswith(line.strip()) for line in text if line.strip()):
        text = [cause, "...", *text]
    return "".join(f"\n    | {printable(line)}" for line in text if line.strip())


def cause_in_log(path: Path) -> str:
    """`cause_line` of the end of a bot's log ("" when it cannot be read)."""
    return cause_line(_last_bytes(path).decode("utf-8", "replace").splitlines())


_CAUSE = re.compile(r"(?i)\b(error|exception|panic|panicked|fatal|cannot|can't|not found|"
                    r"no such file|denied|undefined)\b")
"""Words of the line in which a runtime says why a program ended."""


def cause_line(lines: Sequence[str]) -> str:
    """The last line of a bot's output that reads as the cause of its end, with the line
    after it when it ends in ":" (Rust's panic); else the last line; "" for none. An error's
    message often sits above its stack and a runtime's banner (Node's `Node.js v20.1.0`,
    which is its last line), where the last line alone would not say it."""
    said = [line.strip() for line in lines if line.strip() and not line.startswith("[arena ")]
    for n in range(len(said) - 1, -1, -1):
        line = said[n]
        if _CAUSE.search(line) and not line.startswith(("at ", "File \"")):
            return printable(f"{line} {said[n + 1]}" if line.endswith(":") and n + 1 < len(said)
                             else line)
    return printable(said[-1]) if said else ""


STDIO_HINT = ("it printed its hello on stdout: a bot that speaks JSON lines on stdin/stdout "
              "is declared as `stdio:CMD` (protocol/PROTOCOL.md §12); without `stdio:` its "
              "stdout goes to its log and the referee waits for it on ZeroMQ")


BAD_TOKEN_NOTE = ("a hello with an unknown token (a bot sends the value of $ARENA_TOKEN, new at "
                  "every start of its process)")
"""Why a bot's hello on its own endpoint was refused, said to its author."""


NO_CWD_NOTE = ("sandboxed without a cwd, it started in its private /tmp: the files its "
               "command names are found where they are, a path it opens itself is taken from "
               "/tmp")


def printed_hello(path: Path) -> bool:
    """Whether a bot's log holds a `hello` it printed (a stdio bot not declared `stdio:`)."""
    for line in _last_bytes(path).splitlines():
        try:
            said = json.loads(line)
        except ValueError:
            continue
        if isinstance(said, dict) and said.get("type") == "hello":
            return True
    return False


def check_specs(bots: Sequence[BotSpec]) -> list[str]:
    problems = []
    names = [b.name for b in bots]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"bot name {name!r} is used more than once")
    for bot in bots:
        if not bot.name:
            problems.append("a bot has an empty name")
        if not bot.cmd or not bot.cmd[0]:
            problems.append(f"bot {bot.name!r}: empty command")
        elif bot.builtin is not None and bot.builtin not in BUILTINS:
            problems.append(f"bot {bot.name!r}: unknown built-in {bot.builtin!r}; "
                            f"known: {', '.join('builtin:' + b for b in BUILTINS)}")
    return problems
