"""The conformance run: connect, play, judge, replay, shut down."""

from __future__ import annotations

import itertools
import logging
import secrets
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena import __version__
from arena.checkbot.checks import (
    BOT_NAME,
    BUSY_HINT,
    DIED_HINT,
    EXITED_HINT,
    FRAME_HINT,
    ID_TYPE_HINT,
    INJECT_AT_REQUEST,
    LINE_HINT,
    NO_CWD_HINT,
    QUIT_HINT,
    START_HINT,
    STDIO_CONNECT_HINT,
    STDOUT_HINT,
    TWICE_HINT,
    CheckId,
    CheckOptions,
    CheckReport,
    CheckResult,
)
from arena.checkbot.diagnose import end_hint, hello_problem, log_tail
from arena.checkbot.observer import Observer
from arena.core.errors import ConfigError
from arena.core.record import FaultKind, ForfeitReason, GameRecord
from arena.core.words import count_of, plural
from arena.protocol.codec import encode
from arena.protocol.messages import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Error,
    Shutdown,
    Welcome,
)
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.process import BotProcess, Confinement, describe_exit
from arena.referee.roster import STDIO_HINT, cause_in_log, printed_hello
from arena.referee.sandbox import ENDPOINT_DIR, resolve
from arena.referee.spec import FaultPolicy
from arena.referee.stdio_bridge import bridge_argv, is_stdio
from arena.referee.transport import ZmqTransport

log = logging.getLogger("arena.checkbot")

_GONE = (ForfeitReason.CRASHED, ForfeitReason.DISCONNECTED)
SETTLE_S = 5.0
"""How long a bot whose seat was lost (crashed, disconnected) is given to end its process."""


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
        self.private_endpoint = False
        """The bot's endpoint is ipc in a directory of its own (not tcp)."""
        self.wrapped = is_stdio(options.cmd)
        """A stdio bot runs under the bridge, which reports a signal N as status 128 + N."""

    def run(self) -> CheckReport:
        transport = ZmqTransport(self.options.endpoint)
        process: BotProcess | None = None
        try:
            process, peer = self._connect(transport)
            if process is not None and peer is not None:
                observer = Observer(transport, peer)
                self._play(observer, process, peer)
                self._judge_play(observer, process)
                self._replay(observer, process, peer)
                self._shutdown(transport, process, peer)
        finally:
            if process is not None:
                process.reap()
            transport.close()
        tail = log_tail(self.log_path)
        connects = self.results.get(CheckId.CONNECTS)
        if connects is not None and connects.advice == START_HINT and \
                not self.wrapped and printed_hello(self.log_path):
            # its hello went to the log: a stdio bot run without `stdio:`
            self.results[CheckId.CONNECTS] = replace(connects, advice=STDIO_HINT)
        elif connects is not None and connects.advice == START_HINT:
            # what the bot (or the sandbox starting it) said last names the cause
            said = cause_in_log(self.log_path)
            self.results[CheckId.CONNECTS] = replace(
                connects, detail=f"{connects.detail}: {said}" if said else connects.detail,
                advice=START_HINT + (NO_CWD_HINT if process is not None and process.sandboxed
                                     and self.options.cwd is None else ""))
        results = tuple(self.results.get(c, CheckResult(c, None, "not run: an earlier check "
                                                                 "failed")) for c in CheckId)
        return CheckReport(results, tuple(self.records), tail, self.wrapped)

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
        self.private_endpoint = channel.directory is not None
        env = {"ARENA_ENDPOINT": f"ipc://{ENDPOINT_DIR}/referee.sock" if inside
               else transport.endpoint, "ARENA_TOKEN": token, "ARENA_BOT_NAME": BOT_NAME}
        hidden = [self.log_path.parent, *([Path(transport.directory)] if transport.directory
                                          else [])]
        confinement = Confinement(isolation, channel.directory,
                                  tuple(str(p.resolve()) for p in hidden),
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
            problem = hello_problem(got[1], token)
            if problem is not None:
                detail, code = problem
                if code is not None:  # answered as a run's referee answers it: it should exit
                    transport.send(got[0], encode(Error(code=code, detail=detail)))
                    process.wait(self.options.grace_ms / 1000)  # what it says reaches its log
                self._fail(CheckId.CONNECTS, detail, self._connect_hint())
                return process, None
            transport.send(got[0], encode(Welcome(
                protocol=PROTOCOL_VERSION, name=BOT_NAME, max_message_bytes=MAX_MESSAGE_BYTES,
                referee=f"arena {__version__} check-bot")))
            self._pass(CheckId.CONNECTS, f"hello after {(time.monotonic() - started) * 1000:.0f}"
                                         f" ms (limit {self.options.time.startup_ms} ms)")
            return process, got[0]
        self._fail(CheckId.CONNECTS, f"no hello within {self.options.time.startup_ms} ms",
                   self._connect_hint())
        return process, None

    def _connect_hint(self) -> str:
        """How to say hello: over stdio for a stdio bot ("" for `HINTS`' ZeroMQ socket)."""
        return STDIO_CONNECT_HINT if self.wrapped else ""

    # -- games ------------------------------------------------------------------------------

    def _play(self, observer: Observer, process: BotProcess, peer: bytes) -> None:
        for index in range(self.options.games):
            if not process.alive():
                break
            record = self._game(index, observer, process, peer)
            self.records.append(record)
            self.actions.append(observer.take_actions())
            if record.seats[index % self.players].forfeit in _GONE:
                break  # a forfeit on faults leaves the process able to play the next game

    def _game(self, index: int, observer: Observer, process: BotProcess,
              peer: bytes) -> GameRecord:
        """Play game `index`: its own seed, the candidate in seat index % players."""
        seat = index % self.players
        table = [SeatPlayer(f"random-{i}", builtin="random") for i in range(self.players)]
        # describe: a crash's forfeit line said "crashed (ended)", not how it ended
        table[seat] = SeatPlayer.remote(BOT_NAME, peer, alive=process.alive,
                                        describe=lambda: self._how(process),
                                        private=process.sandboxed and self.private_endpoint)
        return run_game(self.engine, self.options.rules, self.options.seed + index, table,
                        observer, self.options.time, FaultPolicy(max_faults=3), ids=self.ids)

    def _judge_play(self, observer: Observer, process: BotProcess) -> None:
        seats = [next(s for s in r.seats if s.bot == BOT_NAME) for r in self.records]
        if any(s.forfeit in _GONE for s in seats):
            # its connection can drop a moment before the process ends: let the status come,
            # so that the check the end explains is the only one to fail
            process.wait(SETTLE_S)
        faults = [f for r, s in zip(self.records, seats, strict=True) for f in r.faults
                  if f.seat == s.seat]
        timeouts = [f for f in faults if f.kind is FaultKind.TIMEOUT]
        # an id that is no integer fails "echoes request ids", not "sends only valid actions"
        bad_ids = [f for f in faults if f.kind is FaultKind.BAD_MESSAGE and
                   f.detail.endswith("at `$.id`")]
        invalid = [f for f in faults if f.kind is not FaultKind.TIMEOUT and f not in bad_ids]
        decisions = sum(r.decisions for r in self.records)
        late = f"; {count_of(len(observer.late), 'answer')} came after the deadline and " \
               f"{plural('was', len(observer.late))} dropped" if observer.late else ""
        if timeouts and len(timeouts) <= len(observer.wrong_for):
            self._skip(CheckId.IN_TIME, f"not judged: {count_of(len(timeouts), 'timeout')}, each "
                                        "after "
                                        "an answer with a wrong id that the referee dropped")
        elif timeouts:
            self._fail(CheckId.IN_TIME, timeouts[0].detail
                       + f" ({count_of(len(timeouts), 'timeout')}{late})")
        else:
            self._pass(CheckId.IN_TIME, f"slowest answer {observer.slowest_ms:.1f} ms "
                                        f"(limit {self.options.time.move_ms} ms)")
        if observer.wrong_ids:
            twice = all("(already answered)" in wrong for wrong in observer.wrong_ids)
            self._fail(CheckId.ECHOES_IDS, observer.wrong_ids[0]
                       + f" ({count_of(len(observer.wrong_ids), 'wrong id')})",
                       TWICE_HINT if twice else "")
        elif bad_ids:
            self._fail(CheckId.ECHOES_IDS, f"{_fault_text(bad_ids)} "
                                           f"({count_of(len(bad_ids), 'action')} with such "
                                           "an id)", ID_TYPE_HINT)
        else:
            self._pass(CheckId.ECHOES_IDS, f"{len(observer.answered)} of its "
                                           f"{observer.requests} requests answered by id")
        if invalid:
            self._fail(CheckId.VALID_ACTIONS, f"{_fault_text(invalid)} "
                                              f"({count_of(len(invalid), 'fault')})",
                       self._framing_hint(invalid[0].kind))
        else:
            other = " other" if bad_ids else ""
            self._pass(CheckId.VALID_ACTIONS, f"no{other} fault in its {observer.requests} "
                                              f"answers ({decisions} decisions in all)")
        self._judge_error(observer, process)
        self._judge_games(seats, process)

    def _framing_hint(self, kind: FaultKind) -> str:
        """The hint for a message that is not an action message ("" for `HINTS`' own)."""
        if kind not in (FaultKind.NOT_JSON, FaultKind.BAD_MESSAGE, FaultKind.OVERSIZE):
            return ""
        if not self.wrapped:
            return FRAME_HINT
        return STDOUT_HINT if kind is FaultKind.NOT_JSON else LINE_HINT

    def _judge_error(self, observer: Observer, process: BotProcess) -> None:
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
                       end_hint(status) or EXITED_HINT)  # it ended during that game
        elif len(self.records) < self.options.games:
            self.end_reported = True
            planned = count_of(self.options.games, 'game')
            self._fail(CheckId.MANY_GAMES, f"{len(self.records)} of {planned} "
                       f"played; the process ended after game {len(self.records)} ({how})",
                       end_hint(status))
        else:
            forfeits = sum(s.forfeit is not None for s in seats)
            games = len(self.records)
            # with --games 1 the replay of game 1 below is the process's second game
            self._pass(CheckId.MANY_GAMES, f"{games} game{'s' * (games != 1)} in one process"
                       + (f" ({forfeits} forfeited on faults)" if forfeits else "")
                       + (", the replay below its second" if games == 1 else ""))

    # -- reproducibility --------------------------------------------------------------------

    def _replay(self, observer: Observer, process: BotProcess, peer: bytes) -> None:
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
            late = self.results.get(CheckId.IN_TIME)
            self._fail(CheckId.SHUTDOWN, f"still running {self.options.grace_ms} ms after "
                                         "shutdown (a run's referee waits 500 ms, then "
                                         "stops it with SIGTERM)",
                       BUSY_HINT if late is not None and late.ok is False else "")
        elif process.returncode != 0:
            self._fail(CheckId.SHUTDOWN, f"{self._how(process)} after shutdown")
        else:
            self._pass(CheckId.SHUTDOWN, "exited with status 0")


def _fault_text(faults: Sequence[Any]) -> str:
    """The first of `faults` as a check's detail: its kind, decision and what was wrong."""
    first = faults[0]
    return f"{first.kind.value} at decision {first.decision}: {first.detail}"
