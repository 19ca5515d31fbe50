"""The checks of `arena check-bot`, their hints, and the records of a run's results."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from arena.core.game import Json
from arena.core.record import GameRecord
from arena.referee.referee import GRACE_MS
from arena.referee.roster import NO_CWD_NOTE
from arena.referee.sandbox import SandboxPolicy
from arena.referee.spec import TimeControl

BOT_NAME = "candidate"
INJECT_AT_REQUEST = 2
"""The unsolicited `error` goes out just before the bot's second request of the first game."""
INJECTED_DETAIL = "arena check-bot: a test error; carry on with the next request"

class CheckId(StrEnum):
    """The checks, in the order they run."""

    CONNECTS = "connects in time"
    IN_TIME = "answers within the move limit"
    ECHOES_IDS = "echoes request ids"
    VALID_ACTIONS = "sends only valid actions"
    SURVIVES_ERROR = "survives an error reply"
    MANY_GAMES = "plays several games in one process"
    REPRODUCIBLE = "replays a game identically"
    SHUTDOWN = "exits on shutdown"


WARNINGS = frozenset({CheckId.REPRODUCIBLE})
"""Checks whose failure is a warning: reported, but the bot still passes. A bot whose search
stops on the clock may legitimately play a replayed game differently."""


HINTS: dict[CheckId, str] = {
    CheckId.CONNECTS: "connect a DEALER to $ARENA_ENDPOINT and send, as the first message, "
                      '{"type": "hello", "token": $ARENA_TOKEN, "name": ..., "protocol": 1}; '
                      "a JeroMQ (Java) bot needs a tcp endpoint (--tcp)",
    CheckId.IN_TIME: "answer every request within its move_ms (plus bank_ms); flush stdout "
                     "after each line if you are a stdio bot",
    CheckId.ECHOES_IDS: "copy the request's `id` into the action that answers it",
    CheckId.VALID_ACTIONS: "pick one of request.options when they are given; where options is "
                           "null the action is free-form (PROTOCOL.md §9.3, §10.5) and each "
                           "fault's detail above says what was wrong (machiavelli-rummy under "
                           "draw_when_able: false refuses a draw while a play exists, and its "
                           "detail shows one)",
    CheckId.SURVIVES_ERROR: "an `error` message is information, not the end: log it and keep "
                            "reading messages",
    CheckId.MANY_GAMES: "keep the message loop going after game_over: one process plays many "
                        "games, and game_start may come again",
    CheckId.REPRODUCIBLE: "seed your random choices from game_start.bot_seed; see PROTOCOL.md "
                          "(a generator seeded once per process, or from the clock, plays "
                          "the same game differently); a search that stops on the clock "
                          "differs too, which is no fault: bound it in steps, not time, to "
                          "replay identically",
    CheckId.SHUTDOWN: "exit with status 0 when a `shutdown` message arrives",
}

STDIO_CONNECT_HINT = ('print, as your first line on stdout, {"type": "hello", "token": '
                      '$ARENA_TOKEN, "name": ..., "protocol": 1}, and flush; then read the '
                      "referee's messages, one JSON line each, on stdin (PROTOCOL.md §12)")
"""The hint of "connects in time" for a stdio bot (`HINTS`' names a ZeroMQ socket)."""
DIED_HINT = ("the process died in the middle of a game: its last output lines are below; "
             "a bot keeps reading messages until `shutdown` arrives")
"""The hint of "plays several games in one process" when the process did not end by itself
after a game_over (killed by a signal, or a non-zero status)."""
DROPPED_HINT = ("the connection dropped while the process still ran: a frame over 4 MiB makes "
                "ZeroMQ drop it (protocol/PROTOCOL.md, Limits); keep one socket for the whole "
                "run")
"""The hint of "plays several games in one process" for a lost connection of a live process."""
START_HINT = ("the process ended before its hello: its last output lines below say why (a "
              "missing library or file, a wrong path, an exception at start)")
"""The hint of "connects in time" for a process that ended before saying hello."""
NO_CWD_HINT = (f"; {NO_CWD_NOTE}: give --cwd DIR to a bot that opens files relative to its "
               "working directory")
"""Added to `START_HINT` for a sandboxed bot run without a working directory of its own."""
EXITED_HINT = ("the process exited by itself in the middle of a game: a bot keeps reading "
               "messages, through every game_over, until `shutdown` arrives")
"""The hint of "plays several games in one process" for an exit with status 0 mid-game."""
TWICE_HINT = "send exactly one action per request: this request had been answered already"
"""The hint of "echoes request ids" when every wrong id was a request answered before."""
STDOUT_HINT = ("a stdio bot's stdout carries the protocol, one JSON message a line: print "
               "debugging to stderr")
"""The hint of "sends only valid actions" for a stdio bot's frame that is not a message."""
FRAME_HINT = ("send each message as one JSON object in one frame, shaped as PROTOCOL.md §4 "
              "gives it")
"""The hint of "sends only valid actions" for a frame that is not a message."""
LINE_HINT = ("write each message as one JSON object on one line, shaped as PROTOCOL.md §4 "
             'gives it: an answer is {"type": "action", "id": ID, "action": ...}')
"""The hint of "sends only valid actions" for a stdio bot's line that is JSON but not a
message (`STDOUT_HINT` is for a line that is not JSON: a debugging line, most likely)."""
ID_TYPE_HINT = ("copy the request's `id` as the JSON integer it is (a string, or a float, is "
                "not the id)")
"""The hint of "echoes request ids" for an action whose id is not an integer."""
QUIT_HINT = ("keep the process running until a `shutdown` message arrives, then exit with "
             "status 0")
"""The hint of "exits on shutdown" for a process that ended before shutdown was sent."""
BUSY_HINT = ("it also missed the move limit: a bot still busy with a move it never answered "
             "(a loop, a sleep, a blocking call) reads no `shutdown`; make every move end "
             "within move_ms first, then exit with status 0 when `shutdown` arrives")
"""The hint of "exits on shutdown" for a process still running after it, that also failed
"answers within the move limit": the plain hint told a bot stuck in a move to read the
shutdown it cannot reach."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check: passed (True), failed (False) or not run (None), with what was seen."""

    check: CheckId
    ok: bool | None
    detail: str
    advice: str = ""
    """The hint for this failure when the check's usual hint (`HINTS`) names another cause."""

    @property
    def hint(self) -> str:
        """What to fix when the check failed ("" otherwise)."""
        return (self.advice or HINTS[self.check]) if self.ok is False else ""

    @property
    def warning(self) -> bool:
        """True when a warning check failed: worth fixing, but not a failure of the bot."""
        return self.ok is False and self.check in WARNINGS


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What to check and how hard."""

    game: str
    cmd: tuple[str, ...]
    games: int = 3
    players: int | None = None
    """Seats per game (default: 4 where the game allows it)."""
    seed: int = 1
    rules: dict[str, Json] = field(default_factory=dict)
    time: TimeControl = TimeControl(move_ms=1000, bank_ms=0, startup_ms=10000)
    endpoint: str | None = None
    """None: ipc in a private directory; e.g. `tcp://127.0.0.1:0` for JeroMQ bots."""
    cwd: str | None = None
    grace_ms: int = GRACE_MS
    """How long the bot may take to exit after `shutdown`: a run's referee waits 500 ms (its
    `GRACE_MS`), then stops it with SIGTERM."""
    workdir: Path | None = None
    """Where the bot's log goes (default: a temporary directory)."""
    sandbox: SandboxPolicy = SandboxPolicy()
    """The bot runs in the sandbox a tournament would give it (docs/security.md)."""


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The results, the game records and the end of the bot's log."""

    results: tuple[CheckResult, ...]
    records: tuple[GameRecord, ...]
    log_tail: str
    stdio: bool = False
    """A stdio bot: its stdout carries the protocol, only its stderr reaches its log."""

    @property
    def passed(self) -> bool:
        """True when every check but the warning checks ran and passed."""
        return all(r.ok is True for r in self.results if r.check not in WARNINGS)

    @property
    def warnings(self) -> tuple[CheckResult, ...]:
        """The warning checks that failed."""
        return tuple(r for r in self.results if r.warning)


