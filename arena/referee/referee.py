"""`Referee`: the bots of a run, started once and kept for many games; `play` runs one game.

Starts every process bot (handshake within `time.startup_ms`), seats bots by name for each
game, restarts a bot whose process died (or every game with `restart: per-game`), and on
exit stops them all: `shutdown`, grace period, SIGTERM, SIGKILL of each group, reap, and
removal of the private ipc directory.
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
from arena.games import REGISTRY
from arena.protocol.codec import WireError, decode_bot, encode
from arena.protocol.messages import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Error,
    ErrorCode,
    Hello,
    Shutdown,
    Welcome,
)
from arena.referee.match import run_game
from arena.referee.players import BUILTINS, SeatPlayer
from arena.referee.process import BotProcess, stop_all
from arena.referee.replay import ReplayWriter, Step
from arena.referee.spec import BotSpec, FaultPolicy, Restart, TimeControl
from arena.referee.stdio_bridge import bridge_argv
from arena.referee.transport import ZmqTransport

log = logging.getLogger("arena.referee")

LOG_CAP_BYTES = 1 << 20
GRACE_MS = 500


@dataclass
class _Bot:
    spec: BotSpec
    token: str = ""
    process: BotProcess | None = None
    peer: bytes | None = None
    version: str = ""
    failed: ForfeitReason | None = None

    def alive(self) -> bool:
        return self.process is not None and self.process.alive()


class Referee:
    """Runs games between a fixed set of bots; a context manager owning their processes."""

    def __init__(self, bots: Sequence[BotSpec], time: TimeControl, faults: FaultPolicy,
                 workdir: Path, *, endpoint: str | None = None, registry: Registry = REGISTRY,
                 grace_ms: int = GRACE_MS, log_cap: int = LOG_CAP_BYTES) -> None:
        """Check the bots; nothing starts before `__enter__`.

        Raises:
            ConfigError: duplicate names, an empty command or an unknown built-in.
        """
        problems = _check_specs(bots)
        if problems:
            raise ConfigError("invalid bots:", problems)
        self._bots = {spec.name: _Bot(spec) for spec in bots}
        self.time, self.faults, self.workdir = time, faults, workdir
        self._endpoint, self._registry = endpoint, registry
        self._grace_s, self._log_cap = grace_ms / 1000, log_cap
        self._transport: ZmqTransport | None = None
        self._ids = itertools.count(1)
        self._old_sigterm: Any = None

    # -- lifetime ---------------------------------------------------------------------------

    def __enter__(self) -> Referee:
        self._transport = ZmqTransport(self._endpoint)
        self._install_sigterm()
        try:
            self._launch([b for b in self._bots.values()
                          if b.spec.builtin is None and b.spec.restart is Restart.NEVER])
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        reason = "done" if kind is None else "interrupted"
        self._stop([b for b in self._bots.values() if b.process is not None], reason)
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        if self._old_sigterm is not None:
            signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None

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
             on_step: Callable[[Step], None] | None = None) -> GameRecord:
        """Play one game with the named bots in seat order and return its record.

        Raises:
            ConfigError: unknown game, bad rules, or an unknown or repeated bot name.
        """
        engine = self._registry.get(game)
        self._check_seating(seating)
        engine.resolve_rules(len(seating), rules)
        table = [self._bots[name] for name in seating]
        self._prepare(table)
        writer = ReplayWriter(replay) if replay is not None else None
        try:
            return run_game(engine, rules, seed, [self._player(b) for b in table],
                            self._zmq(), self.time, self.faults, replay=writer, ids=self._ids,
                            on_step=on_step)
        finally:
            if writer is not None:
                writer.close()
            self._stop([b for b in table if b.spec.restart is Restart.PER_GAME
                        and b.process is not None], "game over")

    def _check_seating(self, seating: Sequence[str]) -> None:
        unknown = [n for n in seating if n not in self._bots]
        if unknown:
            raise ConfigError(f"unknown bot(s) {', '.join(map(repr, unknown))}; "
                              f"known: {', '.join(self._bots)}")
        repeated = sorted({n for n in seating if list(seating).count(n) > 1})
        if repeated:
            raise ConfigError(f"a bot may take one seat per game: {', '.join(repeated)}")

    def _prepare(self, table: Sequence[_Bot]) -> None:
        """(Re)start the process bots of this table that need it."""
        restart = []
        for bot in table:
            if bot.spec.builtin is not None or bot.failed is ForfeitReason.NO_CONNECT:
                continue
            if bot.spec.restart is Restart.PER_GAME or not bot.alive():
                if bot.process is not None:
                    log.warning("%s: process ended (status %s); restarting it", bot.spec.name,
                                bot.process.returncode)
                    self._stop([bot], "restart")
                restart.append(bot)
        self._launch(restart)

    def _player(self, bot: _Bot) -> SeatPlayer:
        name = bot.spec.name
        if bot.spec.builtin is not None:
            return SeatPlayer(name, builtin=bot.spec.builtin)
        if bot.peer is None or bot.process is None:
            return SeatPlayer(name, absent=bot.failed or ForfeitReason.NO_CONNECT)
        return SeatPlayer.remote(name, bot.peer, bot.version, bot.process.alive)

    # -- starting and stopping --------------------------------------------------------------

    def _launch(self, bots: Sequence[_Bot]) -> None:
        """Start the processes together and wait for their handshakes."""
        pending: dict[str, _Bot] = {}
        for bot in bots:
            bot.peer, bot.version, bot.failed = None, "", None
            bot.token = secrets.token_hex(16)
            env = {**bot.spec.env, "ARENA_ENDPOINT": self.endpoint, "ARENA_TOKEN": bot.token,
                   "ARENA_BOT_NAME": bot.spec.name}
            try:
                logfile = self.workdir / "logs" / f"{bot.spec.name}.log"
                bot.process = BotProcess(bot.spec.name, bridge_argv(bot.spec.cmd), env,
                                         bot.spec.cwd, logfile, self._log_cap)
            except OSError as exc:
                log.error("%s: cannot start %r: %s", bot.spec.name, " ".join(bot.spec.cmd), exc)
                bot.failed = ForfeitReason.NO_CONNECT
                continue
            pending[bot.token] = bot
        refused = self._handshake(pending, time.monotonic() + self.time.startup_ms / 1000)
        failed = [*pending.values(), *refused]
        for bot in failed:
            log.error("%s: no valid hello within %d ms; it forfeits its games", bot.spec.name,
                      self.time.startup_ms)
            bot.failed = ForfeitReason.NO_CONNECT
        self._stop([b for b in failed if b.process is not None], "no handshake")

    def _handshake(self, pending: dict[str, _Bot], deadline: float) -> list[_Bot]:
        """Welcome the bots whose hello matches a pending token; return those refused."""
        transport = self._zmq()
        refused: list[_Bot] = []
        while pending and (remaining := (deadline - time.monotonic()) * 1000) > 0:
            if not any(b.alive() for b in pending.values()):
                break
            got = transport.recv(min(remaining, 50.0))
            if got is None:
                continue
            peer, frames = got
            hello = self._read_hello(peer, frames)
            if hello is None:
                continue
            bot = pending.get(hello.token)
            if bot is None:
                log.warning("hello with a wrong token from peer %s (%s); no seat", peer.hex(),
                            hello.name)
                transport.send(peer, encode(Error(code=ErrorCode.BAD_TOKEN,
                                                  detail="unknown token")))
            elif hello.protocol != PROTOCOL_VERSION:
                detail = f"protocol {hello.protocol} unsupported; this referee speaks " \
                         f"{PROTOCOL_VERSION}"
                log.error("%s: %s", bot.spec.name, detail)
                transport.send(peer, encode(Error(code=ErrorCode.PROTOCOL_VERSION,
                                                  detail=detail)))
                refused.append(pending.pop(hello.token))
            else:
                del pending[hello.token]
                bot.peer, bot.version = peer, hello.version
                transport.send(peer, encode(Welcome(
                    protocol=PROTOCOL_VERSION, name=bot.spec.name,
                    max_message_bytes=MAX_MESSAGE_BYTES, referee=f"arena {__version__}")))
                log.info("%s: connected (version %r)", bot.spec.name, hello.version)
        return refused

    def _read_hello(self, peer: bytes, frames: list[bytes]) -> Hello | None:
        known = {b.peer: b.spec.name for b in self._bots.values() if b.peer is not None}
        if peer in known:
            log.warning("%s: dropped a message sent between games", known[peer])
            return None
        try:
            message = decode_bot(frames[0]) if len(frames) == 1 else None
        except WireError as exc:
            log.warning("dropped an invalid message from unknown peer %s: %s", peer.hex(), exc)
            return None
        if not isinstance(message, Hello):
            log.warning("dropped a message from unknown peer %s (not a hello)", peer.hex())
            return None
        return message

    def _stop(self, bots: Sequence[_Bot], reason: str) -> None:
        for bot in bots:
            if bot.peer is not None and bot.alive() and self._transport is not None:
                self._transport.send(bot.peer, encode(Shutdown(reason=reason)))
        stop_all([b.process for b in bots if b.process is not None], self._grace_s)
        for bot in bots:
            bot.process, bot.peer = None, None

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


def _raise_exit(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _check_specs(bots: Sequence[BotSpec]) -> list[str]:
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
