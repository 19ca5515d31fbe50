"""`Referee`: the bots of a run, started once and kept for many games; `play` runs one game.

Starts every process bot confined (its own sandbox, cgroup and endpoint; handshake within
`time.startup_ms`), seats bots by name for each game, restarts a bot whose process died or
hit a limit (or every game with `restart: per-game`), and on exit stops them all:
`shutdown`, grace period, SIGTERM, SIGKILL of each group and cgroup, reap, and removal of
the private ipc directory. A hello that could be an attack (a second hello for a seat
already taken, another seat's token on a bot's endpoint, a wrong token) wins nothing and is
an alarm: logged, and recorded in the next game's record.
"""

from __future__ import annotations

import itertools
import logging
import secrets
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from arena import __version__
from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.core.record import ForfeitReason, GameRecord
from arena.core.registry import Registry
from arena.core.words import count_of, plural
from arena.games import REGISTRY
from arena.protocol.codec import PEEK_BYTES, WireError, decode_bot, encode, peek
from arena.protocol.messages import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Error,
    ErrorCode,
    Hello,
    Shutdown,
    Welcome,
)
from arena.referee.match import CONNECTIONS, FLOOD_LIMIT, run_game
from arena.referee.players import SeatPlayer
from arena.referee.process import (
    BotProcess,
    Confinement,
    become_subreaper,
    stop_all,
)
from arena.referee.replay import ReplayWriter, Step
from arena.referee.roster import (
    BAD_TOKEN_NOTE,
    NO_CWD_NOTE,
    STDIO_HINT,
    VERSION_CHARS,
    AlarmBook,
    RosterBot,
    check_specs,
    log_tail,
    missing_program,
    printable,
    printed_hello,
)
from arena.referee.sandbox import (
    ENDPOINT_DIR,
    Isolation,
    SandboxPolicy,
    hidden_own,
    own_dirs,
    resolve,
    warning,
)
from arena.referee.spec import BotSpec, FaultPolicy, Restart, TimeControl
from arena.referee.stdio_bridge import bridge_argv, is_stdio
from arena.referee.transport import ZmqTransport, peer_channel

log = logging.getLogger("arena.referee")

LOG_CAP_BYTES = 1 << 20
GRACE_MS = 500
MONITOR_S = 0.1
"""How often the descendants of bots without sandbox or cgroup are looked for."""
HELLO_JUNK = FLOOD_LIMIT
"""Messages other than a hello a bot may send before its hello; one more and it is out at
once (`no_connect`). Each was decoded and logged: a bot that never said hello, sending 1 MiB
frames of small lists (0.4 s of the referee's CPU each), held the wait for every bot started
with it, and the hellos of those behind it went unread until their `startup_ms` ran out."""
HELLO_JUNK_LOGGED = 3
"""Of those, how many are logged one by one."""
_announced = False


class Referee:
    """Runs games between a fixed set of bots; a context manager owning their processes."""

    def __init__(self, bots: Sequence[BotSpec], time: TimeControl, faults: FaultPolicy,
                 workdir: Path, *, endpoint: str | None = None, registry: Registry = REGISTRY,
                 grace_ms: int = GRACE_MS, log_cap: int = LOG_CAP_BYTES,
                 sandbox: SandboxPolicy | None = None, hide: Sequence[Path] = (),
                 announce: bool = True, max_bots: int | None = None) -> None:
        """Check the bots; nothing starts before `__enter__`.

        `workdir` holds the bots' logs (`workdir/logs/NAME.log`); it and every path in
        `hide` (the run directory) are out of every sandboxed bot's sight. `announce` says
        once per process when bots run without the sandbox that `auto` would want.
        `max_bots` bounds the bot processes alive at once: bots then start when a game needs
        them, stay warm for later games, and the least recently used are stopped first
        (None: every bot starts at once and stays).

        Raises:
            ConfigError: duplicate names, an empty command, an unknown built-in, or
                `sandbox: bwrap` where bubblewrap does not work.
        """
        problems = check_specs(bots)
        if problems:
            raise ConfigError("invalid bots:", problems)
        self._bots = {spec.name: RosterBot(spec) for spec in bots}
        self.time, self.faults, self.workdir = time, faults, workdir
        self._endpoint, self._registry = endpoint, registry
        self._grace_s, self._log_cap = grace_ms / 1000, log_cap
        self.isolation: Isolation = resolve(sandbox or SandboxPolicy())
        self._announce = announce
        self._hide = tuple(str(p.resolve()) for p in (workdir, *hide))
        self._own: dict[str, frozenset[str]] | None = None
        self._transport: ZmqTransport | None = None
        self._ids = itertools.count(1)
        self._old_sigterm: Any = None
        self._alarms = AlarmBook()
        self._monitor_stop = threading.Event()
        self._monitor: threading.Thread | None = None
        self.max_bots = max_bots
        self._used: dict[str, int] = {}
        """Bot name -> the number of the game it last played in (least recent stops first)."""
        self._games = 0
        self.waits = StartWaits()
        """The bot starts games waited for, and how long (the pool weighs a start by it)."""

    # -- lifetime ---------------------------------------------------------------------------

    def __enter__(self) -> Referee:
        global _announced
        note = warning(self.isolation)
        if note and self._announce and not _announced:
            _announced = True
            log.warning("%s", note)
        if self.isolation.bwrap is None:
            become_subreaper()  # a setsid grandchild of a bot stays ours to kill
        self._transport = ZmqTransport(self._endpoint)
        self._install_sigterm()
        try:
            if self.max_bots is None:
                self._launch([b for b in self._bots.values()
                              if b.spec.builtin is None and b.spec.restart is Restart.NEVER])
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        reason = "done" if kind is None else "interrupted"
        self._monitor_stop.set()
        if self._monitor is not None:
            self._monitor.join()
            self._monitor = None
        self._stop([b for b in self._bots.values() if b.process is not None], reason)
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        if self._old_sigterm is not None:
            signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None

    def _watch_descendants(self) -> None:
        """Remember the descendants of the bots that neither a sandbox's PID namespace nor a
        cgroup holds, so that one that escapes its group by setsid is still killed at the
        end (a thread started with the first such bot; a bot's limits are read by the game
        that waits on it instead: `RosterBot.over_limit`)."""
        while not self._monitor_stop.wait(MONITOR_S):
            for bot in list(self._bots.values()):
                process = bot.process
                if process is not None and process.tracked:
                    process.track()

    @property
    def endpoint(self) -> str:
        """Where bots connect (for bots started by hand)."""
        return self._zmq().endpoint

    def versions(self) -> dict[str, str]:
        """Return each bot's version as reported in its hello ("" for built-ins)."""
        return {name: bot.version for name, bot in self._bots.items()}

    # -- games ------------------------------------------------------------------------------

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None, *,
             on_step: Callable[[Step], None] | None = None, label: str = "",
             upcoming: Sequence[str] = ()) -> GameRecord:
        """Play one game with the named bots in seat order and return its record.

        `label` names the game in `game_start` and in each bot's log (default: the replay
        file's name without `.jsonl`, which for a tournament is `r1-t2-g0`). `upcoming`
        names the bots of a game likely to come next: with `max_bots`, those not running
        start now, so that their start-up overlaps this game.

        Raises:
            ConfigError: unknown game, bad rules, or an unknown or repeated bot name.
        """
        engine = self._registry.get(game)
        self._check_seating(seating)
        engine.resolve_rules(len(seating), rules)
        table = [self._bots[name] for name in seating]
        self._games += 1
        self._used.update((name, self._games) for name in seating)
        self._evict(set(seating))
        self._prepare(table)
        self._prestart(upcoming, set(seating))
        label = label or (replay.stem if replay is not None else "")
        for bot in table:
            if bot.process is not None:
                bot.process.note(f"game {label or '?'} starts (seats: {', '.join(seating)})"
                                 + (f", replay {replay.name}" if replay else ""))
                if bot.process.cgroup is not None:
                    bot.process.cgroup.start_game()
        writer = ReplayWriter(replay) if replay is not None else None
        try:
            return run_game(engine, rules, seed, [self._player(b) for b in table],
                            self._zmq(), self.time, self.faults, replay=writer, ids=self._ids,
                            on_step=on_step, annotations=self._annotations(), label=label)
        finally:
            if writer is not None:
                writer.close()
            self._stop([b for b in table if b.process is not None and (
                b.spec.restart is Restart.PER_GAME or b.breach is not None)], "game over")

    def live_bots(self) -> list[str]:
        """The bots whose process is running now (for scheduling with affinity)."""
        return [name for name, bot in self._bots.items() if bot.alive()]

    def _evict(self, keep: set[str]) -> None:
        """Stop the least recently used bots outside `keep` until the processes `keep` still
        needs fit under `max_bots`."""
        if self.max_bots is None:
            return
        running = [b for b in self._bots.values() if b.process is not None]
        missing = sum(1 for name in keep if self._needs_process(self._bots[name]))
        excess = len(running) + missing - self.max_bots
        if excess <= 0:
            return
        idle = sorted((b for b in running if b.spec.name not in keep),
                      key=lambda b: self._used.get(b.spec.name, 0))
        self._stop(idle[:excess], "idle")

    def _annotations(self) -> dict[str, Json]:
        """What a game record says besides the game: isolation, and the alarms raised since
        the previous game."""
        notes: dict[str, Json] = {"isolation": self.isolation.to_json()}
        if fresh := self._alarms.take():
            notes["alarms"] = [a.to_json() for a in fresh]
        return notes

    def _check_seating(self, seating: Sequence[str]) -> None:
        unknown = [n for n in seating if n not in self._bots]
        if unknown:
            raise ConfigError(f"unknown {plural('bot', len(unknown))} "
                              f"{', '.join(map(repr, unknown))}; "
                              f"known: {', '.join(self._bots)}")
        repeated = sorted({n for n in seating if list(seating).count(n) > 1})
        if repeated:
            raise ConfigError(f"a bot may take one seat per game: {', '.join(repeated)}")

    def _prepare(self, table: Sequence[RosterBot]) -> None:
        """(Re)start the process bots of this table that need it; take the hellos of those
        started ahead (`_prestart`)."""
        restart, started = [], []
        for bot in table:
            if bot.spec.builtin is not None or bot.failed is ForfeitReason.NO_CONNECT:
                continue
            if bot.spec.restart is Restart.NEVER and bot.peer is None and bot.alive():
                started.append(bot)
            elif bot.spec.restart is Restart.PER_GAME or not bot.alive():
                if bot.process is not None:
                    log.warning("%s: process %s; restarting it", bot.spec.name, bot.describe())
                    self._stop([bot], "restart")
                restart.append(bot)
        if restart or started:
            self._launch(restart, started)

    def _player(self, bot: RosterBot) -> SeatPlayer:
        name = bot.spec.name
        if bot.spec.builtin is not None:
            return SeatPlayer(name, builtin=bot.spec.builtin)
        if bot.peer is None or bot.process is None:
            return SeatPlayer(name, absent=bot.failed or ForfeitReason.NO_CONNECT,
                              why=bot.failure or "it did not connect")
        return SeatPlayer.remote(name, bot.peer, bot.version, bot.process.alive,
                                 describe=bot.describe, breach=bot.over_limit,
                                 recheck=bot.recheck_limit, private=self._private(bot),
                                 exceed=bot.exceed, former=bot.former)

    def _private(self, bot: RosterBot) -> bool:
        """Whether only this bot can reach its endpoint: ipc mounted into its sandbox alone
        (over tcp, or without the sandbox, any process of the machine can connect)."""
        return bot.process is not None and bot.process.sandboxed and \
            bot.channel is not None and bot.channel.directory is not None

    # -- starting and stopping --------------------------------------------------------------

    def _launch(self, bots: Sequence[RosterBot], started: Sequence[RosterBot] = ()) -> None:
        """Start the processes together and wait for their handshakes (and for those of
        `started`, processes already started by `_prestart`)."""
        began = time.monotonic()
        pending = {bot.token: bot for bot in started}
        for bot in bots:
            if self._spawn(bot):
                pending[bot.token] = bot
        waited = len(pending)
        refused = self._handshake(pending, time.monotonic() + self.time.startup_ms / 1000)
        self.waits.add(waited, time.monotonic() - began)
        failed = [*pending.values(), *refused]
        for bot in failed:
            silent = not bot.failure  # no hello came from it that the referee answered
            breach = bot.process.breach() if bot.process is not None else None
            if breach is not None:
                bot.failure = f"{breach}, before its hello"
            elif silent:
                bot.failure = (f"no valid hello within {self.time.startup_ms} ms"
                               if bot.alive() else f"{bot.describe()} before its hello")
            logfile = self.workdir / "logs" / f"{bot.spec.name}.log"
            if not is_stdio(bot.spec.cmd) and printed_hello(logfile):
                bot.failure += f" ({STDIO_HINT})"
            elif silent and bot.process is not None and bot.process.sandboxed and \
                    bot.spec.cwd is None and not bot.alive():
                bot.failure += f" ({NO_CWD_NOTE})"
            log.error("%s: %s; it forfeits its games%s", bot.spec.name, bot.failure,
                      log_tail(logfile))
            if bot.process is not None:  # its author reads its log, not the referee's
                bot.process.note(f"{bot.failure}: stopped; it forfeits its games")
            bot.failed = ForfeitReason.NO_CONNECT
        self._stop([b for b in failed if b.process is not None], "no handshake")

    def _spawn(self, bot: RosterBot) -> bool:
        """Start one bot's process (its hello is awaited later); False when it cannot."""
        if bot.peer is not None:
            bot.former.add(bot.peer)
        bot.peer, bot.version, bot.failed, bot.failure, bot.breach = None, "", None, "", None
        bot.junk = 0
        if bot.token:
            bot.retired.add(bot.token)
        bot.token = secrets.token_hex(16)
        if bot.channel is None:
            bot.channel = self._zmq().open_channel()
        sandboxed = self.isolation.bwrap is not None
        # its endpoint in its sandbox alone: one connection, for the process started now
        self._zmq().admit(bot.channel.number, CONNECTIONS
                          if sandboxed and bot.channel.directory else None)
        endpoint = (f"ipc://{ENDPOINT_DIR}/referee.sock"
                    if sandboxed and bot.channel.directory else bot.channel.endpoint)
        env = {**bot.spec.env, "ARENA_ENDPOINT": endpoint, "ARENA_TOKEN": bot.token,
               "ARENA_BOT_NAME": bot.spec.name}
        confinement = Confinement(
            self.isolation, bot.channel.directory, self._hidden_from(bot),
            network=bot.spec.network or bot.channel.directory is None)
        missing = missing_program(bridge_argv(bot.spec.cmd)[0], bot.spec.cwd)
        shown = hidden_own(self._owned()[bot.spec.name], self._run_dirs()) if sandboxed \
            else None
        if missing:
            bot.failure = missing
        elif shown is not None:
            bot.failure = (f"its command gives it {shown}, which it may not see (the run's "
                           "files: results, logs, the secret salt); give the bot a directory "
                           "of its own, outside the run's")
        else:
            try:
                logfile = self.workdir / "logs" / f"{bot.spec.name}.log"
                bot.process = BotProcess(bot.spec.name, bridge_argv(bot.spec.cmd), env,
                                         bot.spec.cwd, logfile, self._log_cap, confinement)
                if bot.process.tracked and self._monitor is None:
                    self._monitor = threading.Thread(target=self._watch_descendants,
                                                     name="descendants", daemon=True)
                    self._monitor.start()
                return True
            except OSError as exc:
                bot.failure = f"cannot start {' '.join(bot.spec.cmd)!r}: " \
                              f"{exc.strerror or exc}"
        log.error("%s: %s", bot.spec.name, bot.failure)
        bot.failed = ForfeitReason.NO_CONNECT
        return False

    def _prestart(self, names: Sequence[str], keep: set[str]) -> None:
        """Start the bots of a coming game now, within `max_bots`, so that their start-up
        overlaps this game; their hellos are read when that game is prepared."""
        if self.max_bots is None:
            return
        wanted = [self._bots[n] for n in dict.fromkeys(names) if n in self._bots
                  and self._needs_process(self._bots[n])]
        self._evict(keep | set(names))
        room = self.max_bots - sum(1 for b in self._bots.values() if b.process is not None)
        for bot in wanted[:max(0, room)]:
            self._spawn(bot)

    @staticmethod
    def _needs_process(bot: RosterBot) -> bool:
        return bot.spec.builtin is None and bot.process is None and \
            bot.failed is not ForfeitReason.NO_CONNECT

    def _hidden_from(self, bot: RosterBot) -> tuple[str, ...]:
        """The run directory, the other bots' own directories and the bots' endpoints (its
        own is mounted at `ENDPOINT_DIR`)."""
        owned = self._owned()
        mine = owned[bot.spec.name]
        others = {d for name, dirs in owned.items() if name != bot.spec.name for d in dirs}
        ipc = self._zmq().directory
        return (*self._hide, *sorted(others - mine), *([str(Path(ipc).resolve())] if ipc else []))

    def _run_dirs(self) -> tuple[str, ...]:
        """The directories no bot may be given: the run's and the endpoints'."""
        ipc = self._zmq().directory
        return (*self._hide, *([str(Path(ipc).resolve())] if ipc else []))

    def _owned(self) -> dict[str, frozenset[str]]:
        """Each process bot's own directories, resolved once per referee, not every bot's at
        each start: that grew with the field (100 bots, 100 resolutions per start). With
        the /proc scan gone from `BotProcess.reap`, 11.0-11.2 -> 4.9-5.6 ms of a referee's
        CPU per bot started and stopped (8 sandboxed bots)."""
        if self._own is None:
            self._own = {b.spec.name: frozenset(own_dirs(b.spec.cmd, b.spec.cwd))
                         for b in self._bots.values() if b.spec.builtin is None}
        return self._own

    def _handshake(self, pending: dict[str, RosterBot], deadline: float) -> list[RosterBot]:
        """Welcome each bot whose hello comes on its own endpoint with its own token; return
        those refused. Anything else is an alarm and wins nothing."""
        transport = self._zmq()
        refused: list[RosterBot] = []
        while pending and (remaining := (deadline - time.monotonic()) * 1000) > 0:
            if not any(b.alive() for b in pending.values()):
                break
            # only the pending bots' endpoints: a bot started ahead for a later game keeps
            # its hello queued until that game is prepared
            channels = [b.channel.number for b in pending.values() if b.channel is not None]
            got = transport.recv_from(channels, min(remaining, 50.0))
            refused += self._over_connections(pending)
            if got is None:
                continue
            peer, frames = got
            owner = self._owner(peer)
            hello = self._read_hello(owner, peer, frames)
            if hello is None or owner is None:
                if owner is not None:
                    refused += self._over_junk(owner, pending)
                continue
            bot = pending.get(hello.token)
            if hello.token in owner.retired:
                log.info("%s: dropped the hello of an earlier process", owner.spec.name)
            elif bot is not owner:
                owner.junk += 1
                self._refuse_hello(owner, peer, hello)
                refused += self._over_junk(owner, pending)
            elif hello.protocol != PROTOCOL_VERSION:
                stated = str(hello.protocol)  # a bot's number: up to 4,300 digits, cut
                stated = stated if len(stated) <= VERSION_CHARS else \
                    f"{stated[:VERSION_CHARS]}... ({len(stated)} digits)"
                bot.failure = f"protocol {stated} unsupported; this referee speaks " \
                              f"{PROTOCOL_VERSION}"
                log.error("%s: %s", bot.spec.name, bot.failure)
                transport.send(peer, encode(Error(code=ErrorCode.PROTOCOL_VERSION,
                                                  detail=bot.failure)))
                refused.append(pending.pop(hello.token))
            else:
                del pending[hello.token]
                bot.peer, bot.version = peer, printable(hello.version, VERSION_CHARS)
                bot.failure = ""  # a refused hello before this one was not its last word
                transport.send(peer, encode(Welcome(
                    protocol=PROTOCOL_VERSION, name=bot.spec.name,
                    max_message_bytes=MAX_MESSAGE_BYTES, referee=f"arena {__version__}")))
                log.info("%s: connected (version %r)", bot.spec.name, bot.version)
        return refused

    def _over_junk(self, owner: RosterBot, pending: dict[str, RosterBot]) -> list[RosterBot]:
        """[owner] when it is pending and sent more than `HELLO_JUNK` messages that were no
        hello of its own (then out at once), else []. Only where its endpoint is its alone:
        over tcp any local process could put a bot out by sending them on its endpoint."""
        if owner.junk <= HELLO_JUNK or owner.token not in pending or not self._private(owner):
            return []
        owner.failure = (f"flood: {owner.junk} messages before its hello, none a hello with "
                         f"its token (limit {HELLO_JUNK})")
        return [pending.pop(owner.token)]

    def _over_connections(self, pending: dict[str, RosterBot]) -> list[RosterBot]:
        """The pending bots whose endpoint refused a connection: a process opens one, and
        only it can reach the endpoint (`ZmqTransport.admit`). Out at once, not at the end
        of the wait for a hello that may never come (its own connection may be the one
        refused)."""
        over = []
        for token, bot in list(pending.items()):
            if bot.channel is not None and (n := self._zmq().refused_on(bot.channel.number)):
                bot.failure = (f"connections: opened {count_of(n, 'more connection')} to its "
                               f"endpoint before its hello, refused (limit {CONNECTIONS})")
                self._alarm(bot.spec.name, "intruder", bot.failure)
                over.append(pending.pop(token))
        return over

    def _owner(self, peer: bytes) -> RosterBot | None:
        channel = peer_channel(peer)
        return next((b for b in self._bots.values()
                     if b.channel is not None and b.channel.number == channel), None)

    def _refuse_hello(self, owner: RosterBot, peer: bytes, hello: Hello) -> None:
        """A hello that is not this endpoint's bot's first with its own token. In a sandbox
        a token is known to its own bot only, so the alarm is held against the token's
        bot when the token is known, else against the endpoint's."""
        sender = next((b for b in self._bots.values() if b.token and b.token == hello.token),
                      None)
        if sender is owner:
            kind, detail = "second_hello", "a second hello for a seat already taken"
        elif sender is not None:
            kind, detail = "wrong_endpoint", f"a hello with {sender.spec.name}'s token"
        else:
            kind, detail = "bad_token", "a hello with an unknown token"
        where = (f"{detail} on {owner.spec.name}'s endpoint (claimed name "
                 f"{printable(hello.name, VERSION_CHARS)!r})")
        if sender is None and not self._private(owner):
            # anyone on the machine can reach a tcp (or unsandboxed) endpoint: logged as
            # junk is, the first few (unbounded, a local process filled the referee's log)
            self._log_junk(owner, "%s: %s (reachable by any local process: not held against "
                              "it)", where)
        else:
            self._alarm((sender or owner).spec.name, kind, where)
        if sender is None and owner.peer is None and not owner.failure:
            # its own endpoint, before its hello: most likely its own hello (a bot that
            # exits on the error then reads as refused, not as one that never said hello)
            owner.failure = f"its hello was refused: {BAD_TOKEN_NOTE}"
        self._zmq().send(peer, encode(Error(code=ErrorCode.BAD_TOKEN, detail=detail)))

    def _alarm(self, bot: str, kind: str, detail: str) -> None:
        alarm = self._alarms.add(bot, kind, detail)
        if alarm is not None:
            log.error("ALARM against %s: %s: %s", bot, kind, alarm.detail)

    def _read_hello(self, owner: RosterBot | None, peer: bytes,
                    frames: list[bytes]) -> Hello | None:
        if owner is None:
            log.warning("dropped a message from unknown peer %s", peer.hex())
            return None
        if peer == owner.peer:
            self._junk(owner, "%s: dropped a message sent between games")
            return None
        frame = frames[0] if len(frames) == 1 else None
        try:
            if frame is None:
                message = None
            elif len(frame) > PEEK_BYTES and (head := peek(frame)) is not None and \
                    head[0] != "hello":
                message = None  # plainly no hello: dropped for its type, not decoded whole
            else:
                message = decode_bot(frame)
        except WireError as exc:
            self._junk(owner, "dropped an invalid message on %s's endpoint: %s", exc)
            return None
        if not isinstance(message, Hello):
            self._junk(owner, "dropped a message on %s's endpoint from a peer without a seat "
                              "(not a hello)")
            return None
        return message

    @classmethod
    def _junk(cls, owner: RosterBot, what: str, *args: object) -> None:
        """Count a message on `owner`'s endpoint that was no hello; log the first few."""
        owner.junk += 1
        cls._log_junk(owner, what, *args)

    @staticmethod
    def _log_junk(owner: RosterBot, what: str, *args: object) -> None:
        """Log what came on `owner`'s endpoint before its hello while its count of such
        messages (`junk`) is within `HELLO_JUNK_LOGGED`, then once that more came."""
        if owner.junk <= HELLO_JUNK_LOGGED:
            log.warning(what, owner.spec.name, *args)
        elif owner.junk == HELLO_JUNK_LOGGED + 1:
            log.warning("%s: more messages that are no hello on its endpoint; dropped, not "
                        "logged", owner.spec.name)

    def _stop(self, bots: Sequence[RosterBot], reason: str) -> None:
        for bot in bots:
            if bot.peer is not None and bot.alive() and self._transport is not None:
                self._transport.send(bot.peer, encode(Shutdown(reason=reason)))
        stop_all([b.process for b in bots if b.process is not None], self._grace_s)
        for bot in bots:
            if bot.peer is not None:
                bot.former.add(bot.peer)
            bot.process, bot.peer = None, None
            if bot.channel is not None and self._transport is not None:
                self._transport.clear(bot.channel.number)  # what it left queued, freed

    def _zmq(self) -> ZmqTransport:
        if self._transport is None:
            raise RuntimeError("use the Referee as a context manager (with Referee(...) as r)")
        return self._transport

    def _install_sigterm(self) -> None:
        """Turn SIGTERM into SystemExit so that `__exit__` stops the bots."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._old_sigterm = signal.signal(signal.SIGTERM, _raise_exit)


@dataclass
class StartWaits:
    """Bot processes a referee's games waited for, and the wall seconds they waited (a
    start's spawn and handshake; a bot started ahead costs only what was left of its
    start when its game came)."""

    starts: int = 0
    seconds: float = 0.0

    def add(self, starts: int, seconds: float) -> None:
        self.starts += starts
        self.seconds += seconds


def _raise_exit(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)
