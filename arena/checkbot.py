"""`arena check-bot`: a conformance run against one bot, for its author.

Starts the bot as the referee would (`stdio:` bots through the bridge), checks the
handshake, plays a few games against built-in random bots in the same process, sends one
unsolicited `error` to see that the bot carries on, plays the first game again to see that
the bot's actions are the same, then `shutdown`, and reports each check with a hint for each
failure. A failed warning check (`WARNINGS`) is reported but does not fail the bot. Built on
the referee's public pieces (transport, process, `run_game`); the referee itself is not
changed.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena import __version__
from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.core.record import FaultKind, ForfeitReason, GameRecord
from arena.protocol.codec import WireError, decode_bot, decode_referee, encode
from arena.protocol.messages import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Action,
    Error,
    ErrorCode,
    Hello,
    Request,
    Shutdown,
    Welcome,
)
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.process import BotProcess, Confinement, describe_exit
from arena.referee.sandbox import ENDPOINT_DIR, SandboxPolicy, resolve
from arena.referee.spec import FaultPolicy, TimeControl
from arena.referee.stdio_bridge import bridge_argv, is_stdio
from arena.referee.transport import ZmqTransport

log = logging.getLogger("arena.checkbot")

BOT_NAME = "candidate"
_GONE = (ForfeitReason.CRASHED, ForfeitReason.DISCONNECTED)
SETTLE_S = 5.0
"""How long a bot whose seat was lost (crashed, disconnected) is given to end its process."""
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
    CheckId.VALID_ACTIONS: "pick one of request.options when they are given; free-form kinds "
                           "are described in protocol/PROTOCOL.md",
    CheckId.SURVIVES_ERROR: "an `error` message is information, not the end: log it and keep "
                            "reading messages",
    CheckId.MANY_GAMES: "keep the message loop going after game_over: one process plays many "
                        "games, and game_start may come again",
    CheckId.REPRODUCIBLE: "seed your random choices from game_start.bot_seed; see PROTOCOL.md "
                          "(a generator seeded once per process, or from the clock, plays "
                          "the same game differently)",
    CheckId.SHUTDOWN: "exit with status 0 when a `shutdown` message arrives",
}

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
QUIT_HINT = ("keep the process running until a `shutdown` message arrives, then exit with "
             "status 0")
"""The hint of "exits on shutdown" for a process that ended before shutdown was sent."""


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
    grace_ms: int = 3000
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

    @property
    def passed(self) -> bool:
        """True when every check but the warning checks ran and passed."""
        return all(r.ok is True for r in self.results if r.check not in WARNINGS)

    @property
    def warnings(self) -> tuple[CheckResult, ...]:
        """The warning checks that failed."""
        return tuple(r for r in self.results if r.warning)


class _Observer:
    """Wraps the transport: watches the candidate's traffic and injects one `error`."""

    def __init__(self, inner: ZmqTransport, peer: bytes) -> None:
        self.inner, self.peer = inner, peer
        self.requests = 0
        self.pending: int | None = None
        self.last_answered: int | None = None
        self.sent_at = 0.0
        self.slowest_ms = 0.0
        self.requested: set[int] = set()
        self.answered: set[int] = set()
        """The ids of the requests sent to the candidate, and of those it answered in time."""
        self.late: list[int] = []
        """Ids of requests answered after their deadline (the referee dropped the answer)."""
        self.wrong_ids: list[str] = []
        self.wrong_for: set[int] = set()
        """The requests that got an action with a wrong id while they were pending."""
        self.injected_before: int | None = None
        """The id of the first request sent after the injected error."""
        self.answered_after_error: bool | None = None
        self.actions: list[str] = []
        """The candidate's accepted-id actions since the last `take_actions`, as canonical JSON."""

    def send(self, peer: bytes, frame: bytes) -> bool:
        message = decode_referee(frame) if peer == self.peer else None
        if isinstance(message, Request):
            request_id = message.id
            self.requests += 1
            if self.requests == INJECT_AT_REQUEST and self.injected_before is None:
                error = Error(code=ErrorCode.UNEXPECTED, detail=INJECTED_DETAIL,
                              id=self.last_answered)
                self.inner.send(peer, encode(error))
                self.injected_before, self.answered_after_error = request_id, False
            self.pending, self.sent_at = request_id, time.monotonic()
            self.requested.add(request_id)
        return self.inner.send(peer, frame)

    def recv(self, timeout_ms: float,
             peer: bytes | None = None) -> tuple[bytes, list[bytes]] | None:
        got = self.inner.recv(timeout_ms) if peer is None else self.inner.recv(timeout_ms, peer)
        if got is not None and got[0] == self.peer and len(got[1]) == 1:
            self._watch(got[1][0])
        return got

    def drain(self, peer: bytes) -> int:
        """Drop what the bot sent while not asked, as the referee does, but watch each
        message: a late answer that lands between two requests is still seen as late."""
        dropped = 0
        while self.recv(0, peer) is not None:
            dropped += 1
        return dropped

    def _watch(self, frame: bytes) -> None:
        try:
            message = decode_bot(frame)
        except WireError:
            return  # the referee records it as a fault
        if not isinstance(message, Action):
            return
        if message.id != self.pending:
            self._misdirected(message.id)
            return
        self.slowest_ms = max(self.slowest_ms, (time.monotonic() - self.sent_at) * 1000)
        if message.id == self.injected_before:
            self.answered_after_error = True
        self.last_answered, self.pending = message.id, None
        self.answered.add(message.id)
        self.actions.append(json.dumps(message.action, sort_keys=True))

    def _misdirected(self, got: int) -> None:
        """An action whose id is not the pending request's: late, or a wrong id."""
        if got in self.requested and got not in self.answered:
            # the answer to a request that timed out: one cause, reported as a timeout
            self.late.append(got)
            if got == self.injected_before:
                self.answered_after_error = True  # late, but it carried on after the error
            return
        if self.pending is not None:
            self.wrong_for.add(self.pending)
            if self.pending == self.injected_before:
                self.answered_after_error = True  # it did answer after the error
        again = " (already answered)" if got in self.answered else ""
        self.wrong_ids.append(f"action id {got}{again} while request {self.pending} was "
                              "pending")

    def take_actions(self) -> list[str]:
        """Return the actions seen since the last call, and forget them."""
        taken, self.actions = self.actions, []
        return taken

    def close(self) -> None:
        self.inner.close()


def check_bot(options: CheckOptions) -> CheckReport:
    """Run the conformance checks against the bot `options.cmd`.

    Raises:
        ConfigError: unknown game, bad rules or player count, or an empty command.
    """
    from arena.games import REGISTRY  # loads the built-in games

    engine = REGISTRY.get(options.game)
    players = options.players or max(engine.info.min_players, min(4, engine.info.max_players))
    engine.resolve_rules(players, options.rules)
    if not options.cmd or not options.cmd[0]:
        raise ConfigError("check-bot needs a bot command after --")
    with tempfile.TemporaryDirectory(prefix="arena-check-") as tmp:
        workdir = options.workdir or Path(tmp)
        return _Run(options, engine, players, workdir).run()


class _Run:
    def __init__(self, options: CheckOptions, engine: Any, players: int, workdir: Path) -> None:
        self.options, self.engine, self.players = options, engine, players
        self.log_path = workdir / "logs" / f"{BOT_NAME}.log"
        self.results: dict[CheckId, CheckResult] = {}
        self.records: list[GameRecord] = []
        self.actions: list[list[str]] = []
        """The candidate's actions in each game of `records`, in order."""
        self.end_reported = False
        """Whether a failed check already names the end of the bot's process as its cause."""
        self.ids = itertools.count(1)
        """Request ids, as in a referee run: increasing, never reused across games."""
        self.wrapped = is_stdio(options.cmd)
        """A stdio bot runs under the bridge, which reports a signal N as status 128 + N."""

    def run(self) -> CheckReport:
        transport = ZmqTransport(self.options.endpoint)
        process: BotProcess | None = None
        try:
            process, peer = self._connect(transport)
            if process is not None and peer is not None:
                observer = _Observer(transport, peer)
                self._play(observer, process, peer)
                self._judge_play(observer, process)
                self._replay(observer, process, peer)
                self._shutdown(transport, process, peer)
        finally:
            if process is not None:
                process.reap()
            transport.close()
        tail = _tail(self.log_path)
        connects = self.results.get(CheckId.CONNECTS)
        if connects is not None and connects.advice == START_HINT and _last_words(tail):
            # what the bot (or the sandbox starting it) said last names the cause
            self.results[CheckId.CONNECTS] = replace(
                connects, detail=f"{connects.detail}: {_last_words(tail)}")
        results = tuple(self.results.get(c, CheckResult(c, None, "not run: an earlier check "
                                                                 "failed")) for c in CheckId)
        return CheckReport(results, tuple(self.records), tail)

    def _how(self, process: BotProcess) -> str:
        """How the process ended, as a person says it (`killed by SIGABRT`)."""
        return describe_exit(process.returncode, process.sandboxed or self.wrapped)

    def _fail(self, check: CheckId, detail: str, advice: str = "") -> None:
        self.results[check] = CheckResult(check, False, detail, advice)

    def _skip(self, check: CheckId, detail: str) -> None:
        self.results[check] = CheckResult(check, None, detail)

    def _pass(self, check: CheckId, detail: str) -> None:
        self.results[check] = CheckResult(check, True, detail)

    # -- handshake --------------------------------------------------------------------------

    def _connect(self, transport: ZmqTransport) -> tuple[BotProcess | None, bytes | None]:
        token = secrets.token_hex(16)
        isolation = resolve(self.options.sandbox)
        channel = transport.first
        inside = isolation.bwrap is not None and channel.directory is not None
        env = {"ARENA_ENDPOINT": f"ipc://{ENDPOINT_DIR}/referee.sock" if inside
               else transport.endpoint, "ARENA_TOKEN": token, "ARENA_BOT_NAME": BOT_NAME}
        confinement = Confinement(isolation, channel.directory,
                                  (str(self.log_path.parent.resolve()),),
                                  network=channel.directory is None)
        started = time.monotonic()
        try:
            process = BotProcess(BOT_NAME, bridge_argv(self.options.cmd), env, self.options.cwd,
                                 self.log_path, 1 << 20, confinement)
        except OSError as exc:
            self._fail(CheckId.CONNECTS, f"cannot start {' '.join(self.options.cmd)!r}: {exc}",
                       "check the command: the program must exist and be executable (a "
                       "relative path is taken from --cwd)")
            return None, None
        deadline = started + self.options.time.startup_ms / 1000
        while (remaining := (deadline - time.monotonic()) * 1000) > 0:
            got = transport.recv(min(remaining, 50.0))
            if got is None:
                if not process.alive():
                    process.wait(1.0)
                    self.end_reported = True
                    self._fail(CheckId.CONNECTS, "the process ended before saying hello ("
                               f"{self._how(process)})", START_HINT)
                    return process, None
                continue
            problem = _hello_problem(got[1], token)
            if problem is not None:
                self._fail(CheckId.CONNECTS, problem)
                return process, None
            transport.send(got[0], encode(Welcome(
                protocol=PROTOCOL_VERSION, name=BOT_NAME, max_message_bytes=MAX_MESSAGE_BYTES,
                referee=f"arena {__version__} check-bot")))
            self._pass(CheckId.CONNECTS, f"hello after {(time.monotonic() - started) * 1000:.0f}"
                                         f" ms (limit {self.options.time.startup_ms} ms)")
            return process, got[0]
        self._fail(CheckId.CONNECTS, f"no hello within {self.options.time.startup_ms} ms")
        return process, None

    # -- games ------------------------------------------------------------------------------

    def _play(self, observer: _Observer, process: BotProcess, peer: bytes) -> None:
        for index in range(self.options.games):
            if not process.alive():
                break
            record = self._game(index, observer, process, peer)
            self.records.append(record)
            self.actions.append(observer.take_actions())
            if record.seats[index % self.players].forfeit in _GONE:
                break  # a forfeit on faults leaves the process able to play the next game

    def _game(self, index: int, observer: _Observer, process: BotProcess,
              peer: bytes) -> GameRecord:
        """Play game `index`: its own seed, the candidate in seat index % players."""
        seat = index % self.players
        table = [SeatPlayer(f"random-{i}", builtin="random") for i in range(self.players)]
        table[seat] = SeatPlayer.remote(BOT_NAME, peer, alive=process.alive)
        return run_game(self.engine, self.options.rules, self.options.seed + index, table,
                        observer, self.options.time, FaultPolicy(max_faults=3), ids=self.ids)

    def _judge_play(self, observer: _Observer, process: BotProcess) -> None:
        seats = [next(s for s in r.seats if s.bot == BOT_NAME) for r in self.records]
        if any(s.forfeit in _GONE for s in seats):
            # its connection can drop a moment before the process ends: let the status come,
            # so that the check the end explains is the only one to fail
            process.wait(SETTLE_S)
        faults = [f for r, s in zip(self.records, seats, strict=True) for f in r.faults
                  if f.seat == s.seat]
        timeouts = [f for f in faults if f.kind is FaultKind.TIMEOUT]
        invalid = [f for f in faults if f.kind is not FaultKind.TIMEOUT]
        decisions = sum(r.decisions for r in self.records)
        late = f"; {len(observer.late)} answer(s) came after the deadline and were " \
               "dropped" if observer.late else ""
        if timeouts and len(timeouts) <= len(observer.wrong_for):
            self._skip(CheckId.IN_TIME, f"not judged: {len(timeouts)} timeout(s), each after "
                                        "an answer with a wrong id that the referee dropped")
        elif timeouts:
            self._fail(CheckId.IN_TIME, timeouts[0].detail + f" ({len(timeouts)} timeout(s)"
                                                             f"{late})")
        else:
            self._pass(CheckId.IN_TIME, f"slowest answer {observer.slowest_ms:.1f} ms "
                                        f"(limit {self.options.time.move_ms} ms)")
        if observer.wrong_ids:
            self._fail(CheckId.ECHOES_IDS, observer.wrong_ids[0] +
                       f" ({len(observer.wrong_ids)} wrong id(s))")
        else:
            self._pass(CheckId.ECHOES_IDS, f"{observer.requests} requests answered by id")
        if invalid:
            first = invalid[0]
            self._fail(CheckId.VALID_ACTIONS, f"{first.kind.value} at decision {first.decision}:"
                                              f" {first.detail} ({len(invalid)} fault(s))")
        else:
            self._pass(CheckId.VALID_ACTIONS, f"no fault in {decisions} decisions")
        self._judge_error(observer, process)
        self._judge_games(seats, process)

    def _judge_error(self, observer: _Observer, process: BotProcess) -> None:
        if observer.injected_before is None:
            self._skip(CheckId.SURVIVES_ERROR, "not run: the bot got fewer than "
                                               f"{INJECT_AT_REQUEST} requests")
        elif observer.answered_after_error:
            self._pass(CheckId.SURVIVES_ERROR, f"answered request {observer.injected_before} "
                                               "after an unsolicited error")
        else:
            ended = "" if process.returncode is None else \
                f"; then the process {self._how(process)}"
            self.end_reported = self.end_reported or bool(ended)
            self._fail(CheckId.SURVIVES_ERROR, f"no answer to request "
                                               f"{observer.injected_before}, sent just after "
                                               f"an error message{ended}")

    def _judge_games(self, seats: Sequence[Any], process: BotProcess) -> None:
        gone = [(i, s.forfeit) for i, s in enumerate(seats) if s.forfeit in _GONE]
        status = process.returncode
        how = self._how(process)
        if (gone or len(self.records) < self.options.games) and self.end_reported:
            self._skip(CheckId.MANY_GAMES, f"not run: the process ended ({how}); see above")
        elif gone:
            game, reason = gone[0]
            self.end_reported = status is not None
            self._fail(CheckId.MANY_GAMES, f"game {game + 1}: {reason.value} ({how})",
                       _end_hint(status))
        elif len(self.records) < self.options.games:
            self.end_reported = True
            self._fail(CheckId.MANY_GAMES, f"{len(self.records)} of {self.options.games} games "
                       f"played; the process ended after game {len(self.records)} ({how})",
                       _end_hint(status))
        else:
            forfeits = sum(s.forfeit is not None for s in seats)
            self._pass(CheckId.MANY_GAMES, f"{len(self.records)} games in one process"
                       + (f" ({forfeits} forfeited on faults)" if forfeits else ""))

    # -- reproducibility --------------------------------------------------------------------

    def _replay(self, observer: _Observer, process: BotProcess, peer: bytes) -> None:
        """Play the first game again (same seed, seat and opponents) and compare actions."""
        first = self.records[0] if self.records else None
        if first is None or not process.alive():
            self._skip(CheckId.REPRODUCIBLE, "not run: the bot's process has ended")
            return
        if first.seats[0].forfeit is not None:
            self._skip(CheckId.REPRODUCIBLE, "not run: the bot forfeited game 1 "
                                             f"({first.seats[0].forfeit.value})")
            return
        observer.take_actions()
        replay = self._game(0, observer, process, peer)
        again, before = observer.take_actions(), self.actions[0]
        if replay.seats[0].forfeit is not None:
            self._skip(CheckId.REPRODUCIBLE, "not run: the bot forfeited game 1 when it was "
                                             f"played again ({replay.seats[0].forfeit.value})")
            return
        if again == before:
            self._pass(CheckId.REPRODUCIBLE, f"game 1 played twice: the same {len(again)} "
                                             "actions")
            return
        at = next((i for i, (a, b) in enumerate(zip(before, again, strict=False)) if a != b),
                  min(len(before), len(again)))
        differs = (f"game 1 played twice: the bot's action {at + 1} differs ({len(before)} "
                   f"then {len(again)} actions)")
        if any(f.seat == 0 for f in (*first.faults, *replay.faults)):
            # a default action played for a fault changes the game: not the bot's randomness
            self._skip(CheckId.REPRODUCIBLE, f"inconclusive: {differs}, after a fault or "
                                             "timeout of the bot (see above)")
        else:
            self._fail(CheckId.REPRODUCIBLE, differs)

    # -- shutdown ---------------------------------------------------------------------------

    def _shutdown(self, transport: ZmqTransport, process: BotProcess, peer: bytes) -> None:
        status = process.returncode
        if status is not None:
            how = self._how(process)
            if self.end_reported:
                self._skip(CheckId.SHUTDOWN, f"not run: the process had already ended ({how})")
            else:
                self._fail(CheckId.SHUTDOWN, f"the process ended before shutdown was sent "
                                             f"({how})", QUIT_HINT if status == 0 else DIED_HINT)
            return
        transport.send(peer, encode(Shutdown(reason="done")))
        if not process.wait(self.options.grace_ms / 1000):
            self._fail(CheckId.SHUTDOWN, f"still running {self.options.grace_ms} ms after "
                                         "shutdown")
        elif process.returncode != 0:
            self._fail(CheckId.SHUTDOWN, f"{self._how(process)} after shutdown")
        else:
            self._pass(CheckId.SHUTDOWN, "exited with status 0")


def _end_hint(status: int | None) -> str:
    """The hint for a lost seat: "" (the check's own hint) for a process that ended by itself."""
    if status is None:
        return DROPPED_HINT
    return "" if status == 0 else DIED_HINT


def _hello_problem(frames: list[bytes], token: str) -> str | None:
    """Return what is wrong with the first message, or None for a good hello."""
    if len(frames) != 1:
        return f"the first message has {len(frames)} frames; a message is exactly one frame"
    try:
        message = decode_bot(frames[0])
    except WireError as exc:
        return f"the first message is not a valid hello: {exc}"
    if not isinstance(message, Hello):
        return "the first message must be a hello"
    if message.token != token:
        return "hello carries a wrong token (send the value of $ARENA_TOKEN)"
    if message.protocol != PROTOCOL_VERSION:
        return f"hello says protocol {message.protocol}; the referee speaks {PROTOCOL_VERSION}"
    return None


def _last_words(tail: str) -> str:
    """The bot's last non-empty output line (the referee's own notes skipped), or ""."""
    said = [line.strip() for line in tail.splitlines()
            if line.strip() and not line.startswith("[arena ")]
    return said[-1] if said else ""


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
