"""`run_game`: the only loop that joins an engine and the bots.

For each decision it sends the deciding seat a `request` (observation, events since its last
request, options, time left), waits on a monotonic clock for the matching `action`, and hands
it to the engine. Anything wrong with a reply is a fault (the engine's default action is
played); too many faults or a dead process forfeit the seat to the seeded autopilot.
Engine bugs end the game with `Termination.ENGINE_ERROR` and never count against a bot.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena import __version__
from arena.core.errors import GameError, MalformedAction
from arena.core.game import Decision, Event, Game, Json, Outcome, Termination, with_forfeits
from arena.core.record import Fault, FaultKind, ForfeitReason, GameRecord, SeatRecord
from arena.core.rng import SEED_BITS, derive_seed, new_rng
from arena.core.words import count_of
from arena.protocol.codec import PEEK_BYTES, WireError, decode_bot, encode, peek
from arena.protocol.messages import (
    BOT_SEED_BITS,
    Action,
    Error,
    ErrorCode,
    GameOver,
    GameStart,
    Request,
    message_type,
)
from arena.referee.players import SeatPlayer, builtin_action
from arena.referee.replay import ReplayWriter, Step
from arena.referee.roster import printable
from arena.referee.spec import FaultPolicy, TimeControl
from arena.referee.transport import Transport

log = logging.getLogger("arena.referee")

POLL_SLICE_MS = 100.0
"""How often a wait checks that the bot's process is still alive."""
FAULT_DETAIL_CHARS = 1000
"""How much of a fault's detail is kept: what the bot sent is quoted, and it may be 1 MiB."""
CONNECTIONS = 1
"""How many connections a bot may hold to its own endpoint."""
FLOOD_LIMIT = 100
"""Unsolicited messages a bot may send in one game before each `flood` fault: they are
dropped unread, and only when that bot is next asked, so they never cost another seat's
clock."""


_DEFAULT_TIME = TimeControl()
_DEFAULT_FAULTS = FaultPolicy()


def bot_seed(game_seed: int, seat: int) -> int:
    """Return the `game_start.bot_seed` of `seat`: a one-way (SHA-512) derivation of the game
    seed, cut to 53 bits so that every JSON parser reads it exactly."""
    return derive_seed(game_seed, "bot", seat) >> (SEED_BITS - BOT_SEED_BITS)


class EngineFailure(Exception):
    """An engine raised something other than a `GameError`: our bug, not a bot's."""


@dataclass
class _Seat:
    seat: int
    player: SeatPlayer
    bank_ms: float
    faults: int = 0
    timeouts: int = 0
    time_ms: float = 0.0
    forfeit: ForfeitReason | None = None
    forfeit_at: int = 0
    unsolicited: int = 0
    """The decision at which the seat forfeited: ranks forfeited seats (`with_forfeits`)."""
    started: bool = False
    pending: list[dict[str, Json]] = field(default_factory=list)


class _Reply(NamedTuple):
    """What came of one request. A NamedTuple, not a frozen dataclass: it is built on the
    round trip's critical path, and a frozen dataclass's __init__ costs ~1 us more."""

    action: Json = None
    fault: tuple[FaultKind, str] | None = None
    gone: ForfeitReason | None = None
    request: int | None = None
    time_ms: float = 0.0
    why: str = ""
    """For `gone`: how the process ended, or the limit it hit."""


def run_game(
    game: Game[Any, Any], rules: Mapping[str, Json], seed: int, players: Sequence[SeatPlayer],
    transport: Transport, time_control: TimeControl = _DEFAULT_TIME,
    faults: FaultPolicy = _DEFAULT_FAULTS, *, replay: ReplayWriter | None = None,
    clock: Callable[[], float] = time.monotonic, ids: Iterator[int] | None = None,
    on_step: Callable[[Step], None] | None = None,
    annotations: Mapping[str, Json] | None = None, label: str = "",
) -> GameRecord:
    """Play one game to its end and return its record.

    `annotations` (e.g. the isolation in force, alarms) go into the record's details.

    Raises:
        ConfigError: the rules or the number of players are not valid for the game.
    """
    match = _Match(game, rules, seed, players, transport, time_control, faults, clock,
                   ids or itertools.count(1), replay, on_step)
    match.annotations = dict(annotations or {})
    match.label = label
    return match.run()


class _Match:
    def __init__(self, game: Game[Any, Any], rules: Mapping[str, Json], seed: int,
                 players: Sequence[SeatPlayer], transport: Transport, time_control: TimeControl,
                 faults: FaultPolicy, clock: Callable[[], float], ids: Iterator[int],
                 replay: ReplayWriter | None, on_step: Callable[[Step], None] | None) -> None:
        self.game, self.seed, self.transport, self.clock = game, seed, transport, clock
        self.time, self.policy, self.ids, self.replay = time_control, faults, ids, replay
        self.on_step = on_step
        self.rules = game.resolve_rules(len(players), rules)
        self.seats = [_Seat(i, p, float(time_control.bank_ms)) for i, p in enumerate(players)]
        self.faults: list[Fault] = []
        self.n = 0
        self.rngs = [new_rng(derive_seed(seed, "autopilot", i)) for i in range(len(players))]
        self.state: Any = None
        self.annotations: dict[str, Json] = {}
        self.label = ""
        self.alarms: list[dict[str, Json]] = []
        self.strangers: set[bytes] = set()
        """Other connections seen on bots' endpoints that anyone could reach (told once)."""
        self.forfeits: dict[str, Json] = {}
        """Seat -> why it forfeited (`crashed: killed by SIGKILL`), for the record."""

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> GameRecord:
        self._header()
        try:
            self.state = self._engine(self.game.new_game, len(self.seats), self.rules, self.seed)
            self._start()
            while (decision := self._engine(self.game.to_act, self.state)) is not None:
                self._decide(decision)
            self._late_limits()
            outcome = self._engine(self.game.outcome, self.state)
            if outcome is None:
                raise EngineFailure("to_act() returned None but outcome() is None")
        except EngineFailure as exc:
            log.error("%s engine error at decision %d (seed %d): %s", self.game.info.id,
                      self.n, self.seed, exc, exc_info=exc.__cause__ or exc)
            outcome = Outcome(Termination.ENGINE_ERROR, (1,) * len(self.seats),
                              (0,) * len(self.seats), {"error": str(exc)})
        return self._finish(outcome)

    def _late_limits(self) -> None:
        """A limit hit after the monitor's last sample still forfeits the game it was hit
        in: each bot's counters are read once more when the last decision is made."""
        for seat in self.seats:
            if seat.forfeit is None and seat.player.peer is not None and (
                    why := seat.player.recheck()) is not None:
                self._fault(seat, (FaultKind.LIMIT, why), None)
                self._forfeit(seat, ForfeitReason.LIMIT, notify=True, why=why)

    def _engine(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except EngineFailure:
            raise
        except Exception as exc:  # any engine exception here is an engine bug
            raise EngineFailure(f"{getattr(fn, '__name__', fn)}: {exc!r}") from exc

    def _start(self) -> None:
        names = [s.player.name for s in self.seats]
        for seat in self.seats:
            if seat.player.absent is not None:
                self._forfeit(seat, seat.player.absent, notify=False, why=seat.player.why)
            elif seat.player.peer is not None:
                message = GameStart(game=self.game.info.id, rules=dict(self.rules),
                                    seat=seat.seat, players=names, move_ms=self.time.move_ms,
                                    bank_ms=self.time.bank_ms, max_faults=self.policy.max_faults,
                                    bot_seed=bot_seed(self.seed, seat.seat),
                                    label=self.label)
                seat.started = self.transport.send(seat.player.peer, encode(message))
                if not seat.started:
                    self._forfeit(seat, ForfeitReason.DISCONNECTED, notify=False)

    def _decide(self, decision: Decision) -> None:
        self.n += 1
        seat = self.seats[decision.seat]
        reply = _Reply()
        if seat.forfeit is not None:
            action, source = self._autopilot(seat), "autopilot"
        elif seat.player.builtin is not None:
            action = self._engine(builtin_action, seat.player.builtin, self.game, self.state,
                                  seat.seat, self.rngs[seat.seat])
            source = "builtin"
        else:
            reply = self._ask(seat, decision)
            events = self._try_bot(seat, decision, reply)
            if events is not None:
                self._record(seat, decision, reply.action, "bot", reply, events)
                return
            action, source = ((self._autopilot(seat), "autopilot") if reply.gone is not None
                              else (self._engine(self.game.default_action, self.state,
                                                 seat.seat), "default"))
        events = self._engine(self.game.apply, self.state, seat.seat, action)
        self._record(seat, decision, action, source, reply, events)

    def _try_bot(self, seat: _Seat, decision: Decision, reply: _Reply) -> list[Event] | None:
        """Apply the bot's action and return its events; None after a fault or a forfeit."""
        if reply.gone is ForfeitReason.LIMIT:
            self._fault(seat, (FaultKind.LIMIT, reply.why), reply.request)
            if seat.forfeit is None:
                self._forfeit(seat, ForfeitReason.LIMIT, notify=True, why=reply.why)
            return None
        if reply.gone is not None:
            self._forfeit(seat, reply.gone, notify=False, why=reply.why)
            return None
        problem = reply.fault
        if problem is None:
            try:
                parsed = self.game.parse_action(decision, reply.action)
                events: list[Event] = self.game.apply(self.state, seat.seat, parsed)
                return events
            except MalformedAction as exc:
                problem = (FaultKind.MALFORMED_ACTION, str(exc))
            except GameError as exc:
                problem = (FaultKind.ILLEGAL_ACTION, str(exc))
            except Exception as exc:
                raise EngineFailure(f"parse_action/apply: {exc!r}") from exc
        self._fault(seat, problem, reply.request)
        return None

    def _autopilot(self, seat: _Seat) -> Any:
        return self._engine(self.game.random_action, self.state, seat.seat, self.rngs[seat.seat])

    # -- talking to a bot -------------------------------------------------------------------

    def _ask(self, seat: _Seat, decision: Decision) -> _Reply:
        assert seat.player.peer is not None
        request_id = next(self.ids)
        # encoded below, before the state changes: the view (no copies) is enough
        observation = self._engine(self.game.observation_view, self.state, seat.seat)
        frame = encode(Request(
            id=request_id, kind=decision.kind, seat=seat.seat, observation=observation,
            events=seat.pending, options=None if decision.options is None
            else list(decision.options), context=dict(decision.context),
            move_ms=self.time.move_ms, bank_ms=int(seat.bank_ms)))
        seat.pending = []
        stray = self.transport.drain(seat.player.peer)
        if stray:
            self._unsolicited(seat, stray, request_id)
        if (stranger := self.transport.stranger(seat.player.peer)) is not None:
            # sent between its turns: seen here, or its frames' memory would go unnoticed
            self._intruder(seat, stranger)
        if refused := self.transport.refused(seat.player.peer):
            self._over_connections(seat, f"{count_of(refused, 'more connection')} to its "
                                         "endpoint, "
                                         "refused")
        sent = self.clock()  # after encoding: a bot is charged for the round trip only
        if not self.transport.send(seat.player.peer, frame):
            return _Reply(gone=ForfeitReason.DISCONNECTED, request=request_id)
        reply, ended = self._await(seat, request_id,
                                   sent + (self.time.move_ms + seat.bank_ms) / 1000)
        return self._charge(seat, reply, (ended - sent) * 1000)

    def _charge(self, seat: _Seat, reply: _Reply, elapsed_ms: float) -> _Reply:
        seat.time_ms += elapsed_ms
        over = max(0.0, elapsed_ms - self.time.move_ms)
        seat.bank_ms = max(0.0, seat.bank_ms - over)
        return _Reply(reply.action, reply.fault, reply.gone, reply.request, elapsed_ms, reply.why)

    def _await(self, seat: _Seat, request_id: int, deadline: float) -> tuple[_Reply, float]:
        """Return the reply and when the bot's clock stops: the arrival of the frame that
        answered (decoding and checking it is the referee's time, not the bot's), or now."""
        peer, clock = seat.player.peer, self.clock
        while (remaining := (deadline - clock()) * 1000) > 0:
            got = self.transport.recv(min(remaining, POLL_SLICE_MS), peer)
            arrived = clock()
            if got is None:
                if (gone := self._gone(seat, request_id)) is not None:
                    return gone, arrived
                continue
            sender, frames = got
            if sender != peer:
                self._intruder(seat, sender)
                continue
            reply = self._parse(seat, request_id, frames)
            if reply is not None:
                return self._gone(seat, request_id) or reply, arrived
        limit = f"{self.time.move_ms} ms + bank {seat.bank_ms:.0f} ms"
        return (_Reply(fault=(FaultKind.TIMEOUT, f"no action within {limit}"),
                       request=request_id), clock())

    def _gone(self, seat: _Seat, request_id: int) -> _Reply | None:
        """A reply for a bot over a resource limit or whose process ended, else None."""
        player = seat.player
        if (breach := player.breach()) is not None:
            return _Reply(gone=ForfeitReason.LIMIT, request=request_id, why=breach)
        if not player.alive():
            why = player.describe()  # first: it also reads a limit the process died of
            breach = player.breach()
            return _Reply(gone=ForfeitReason.CRASHED if breach is None else ForfeitReason.LIMIT,
                          request=request_id, why=breach or why)
        return None

    def _unsolicited(self, seat: _Seat, count: int, request_id: int) -> None:
        log.info("%s: dropped %s sent while not asked", seat.player.name,
                 count_of(count, "message"))
        before = seat.unsolicited // FLOOD_LIMIT
        seat.unsolicited += count
        if seat.unsolicited // FLOOD_LIMIT > before and seat.forfeit is None:
            self._fault(seat, (FaultKind.FLOOD, f"{seat.unsolicited} messages sent while not "
                               f"asked in this game (limit {FLOOD_LIMIT})"), request_id)

    def _stale(self, seat: _Seat, got: int, request_id: int) -> None:
        """A reply to a request that is not pending: dropped. The first few are answered
        with `stale_id` (a late reply is an honest bot's mistake); past `FLOOD_LIMIT` in a
        game each hundred is a `flood` fault, and nothing is answered any more."""
        seat.unsolicited += 1
        if seat.unsolicited <= 3:
            log.warning("%s: dropped a reply to request %d while waiting for %d",
                        seat.player.name, got, request_id)
            self._error(seat, ErrorCode.STALE_ID, f"request {got} is not pending; "
                        f"waiting for {request_id}", got)
        elif seat.unsolicited % FLOOD_LIMIT == 0 and seat.forfeit is None:
            self._fault(seat, (FaultKind.FLOOD, f"{seat.unsolicited} messages sent while not "
                               f"asked in this game (limit {FLOOD_LIMIT})"), request_id)

    def _intruder(self, seat: _Seat, sender: bytes) -> None:
        """A second connection on a bot's own endpoint: dropped unread, and an alarm against
        the bot where only it can reach the endpoint; over tcp (or unsandboxed) any process
        of the machine can, so the bot is not blamed for what another may have sent."""
        detail = f"a message from a second connection ({sender.hex()}) on its endpoint"
        if any(a["detail"] == detail for a in self.alarms) or sender in self.strangers:
            return
        if sender in seat.player.former:  # a late answer of its process before this one
            log.info("%s: dropped a message of its earlier process", seat.player.name)
            return
        if not seat.player.private:
            self.strangers.add(sender)
            log.warning("%s: dropped %s (reachable by any local process: not held against it)",
                        seat.player.name, detail)
            return
        self._over_connections(seat, detail)

    def _over_connections(self, seat: _Seat, detail: str) -> None:
        """An `intruder` alarm and over a limit: each connection may queue frames in the
        referee's memory (a bot filling several with 4 MiB frames held 2 GiB there), so it
        forfeits and its process is stopped after the game."""
        log.error("ALARM against %s: intruder: %s", seat.player.name, detail)
        self.alarms.append({"bot": seat.player.name, "kind": "intruder", "detail": detail})
        seat.player.exceed(f"connections: opened another connection to its endpoint "
                           f"(limit {CONNECTIONS})")

    def _parse(self, seat: _Seat, request_id: int, frames: list[bytes]) -> _Reply | None:
        """Return the reply to `request_id`, a fault, or None for a stale message (dropped)."""
        if len(frames) != 1:
            detail = f"{len(frames)} frames; a message is exactly one frame"
            return _Reply(fault=(FaultKind.BAD_MESSAGE, detail), request=request_id)
        if len(frames[0]) > PEEK_BYTES and (head := peek(frames[0])) is not None and \
                head[1] is not None and head[1] != request_id:
            self._stale(seat, head[1], request_id)  # known by its id: its action not built
            return None
        try:
            message = decode_bot(frames[0])
        except WireError as exc:
            return _Reply(fault=(exc.kind, exc.detail), request=request_id)
        if not isinstance(message, Action):
            got = message_type(type(message))
            detail = f"expected an action for request {request_id}, got {got}"
            return _Reply(fault=(FaultKind.BAD_MESSAGE, detail), request=request_id)
        if message.id != request_id:
            self._stale(seat, message.id, request_id)
            return None
        return _Reply(action=message.action, request=request_id)

    def _error(self, seat: _Seat, code: ErrorCode, detail: str, request: int | None) -> None:
        if seat.player.peer is not None and seat.forfeit is not ForfeitReason.CRASHED:
            self.transport.send(seat.player.peer,
                                encode(Error(code=code, detail=detail, id=request)))

    # -- faults and forfeits ----------------------------------------------------------------

    def _fault(self, seat: _Seat, problem: tuple[FaultKind, str], request: int | None) -> None:
        kind, detail = problem
        # it may quote the bot: shown on terminals, never obeyed, and cut (a 1 MiB action
        # quoted whole made 3 MiB a fault, printed twice and stored thrice: 22 MB a game)
        if len(detail) > FAULT_DETAIL_CHARS:
            detail = f"{detail[:FAULT_DETAIL_CHARS]}... ({len(detail)} characters)"
        detail = printable(detail)
        fault = Fault(seat.seat, kind, detail, self.n)
        self.faults.append(fault)
        seat.faults += 1
        seat.timeouts += kind is FaultKind.TIMEOUT
        log.warning("%s (seat %d%s) fault at decision %d%s: %s: %s", seat.player.name,
                    seat.seat, self._in_game(), self.n,
                    "" if request is None else f" (request {request})", kind.value, detail)
        self._error(seat, ErrorCode(kind.value), detail, request)
        if seat.faults >= self.policy.max_faults:
            self._forfeit(seat, ForfeitReason.MAX_FAULTS, notify=True)

    def _in_game(self) -> str:
        """`, game r1-t0-g0` for a log line (after the seat; "" for a game without a label):
        with several workers, which game a warning came from."""
        return f", game {self.label}" if self.label else ""

    def _forfeit(self, seat: _Seat, reason: ForfeitReason, notify: bool, why: str = "") -> None:
        seat.forfeit, seat.forfeit_at = reason, self.n
        self.forfeits[str(seat.seat)] = f"{reason.value}: {why}" if why else reason.value
        log.warning("%s (seat %d%s) forfeits: %s%s", seat.player.name, seat.seat,
                    self._in_game(), reason.value, f" ({why})" if why else "")
        if notify:
            self._error(seat, ErrorCode.FORFEIT, f"forfeit ({reason.value}); the autopilot "
                        "plays this seat until game_over", None)
        if self.replay is not None:
            line: dict[str, Json] = {"type": "forfeit", "seat": seat.seat,
                                     "reason": reason.value, "decision": self.n}
            if why:
                line["detail"] = why
            self.replay.write(line)

    # -- records ----------------------------------------------------------------------------

    def _record(self, seat: _Seat, decision: Decision, action: Any, source: str,
                reply: _Reply, events: list[Event]) -> None:
        listeners = [s for s in self.seats if s.player.peer is not None and s.forfeit is None]
        if listeners:
            for event in events:  # one wire dict per event, shared by the seats that see it
                wire = event.to_wire()
                for other in listeners:
                    if event.visible_to is None or other.seat in event.visible_to:
                        other.pending.append(wire)
        if self.replay is None and self.on_step is None:
            return
        wire = reply.action if source == "bot" else self._engine(self.game.action_to_wire,
                                                                 action)
        fault = self.faults[-1] if self.faults and self.faults[-1].decision == self.n \
            and self.faults[-1].seat == seat.seat else None
        step = Step(self.n, seat.seat, decision.kind, wire, source, reply.time_ms,
                    tuple(events), fault, reply.request)
        if self.replay is not None:
            self.replay.write(step.to_json())
        if self.on_step is not None:
            self.on_step(step)

    def _header(self) -> None:
        if self.replay is not None:
            self.replay.write({
                "type": "header", "format": 1,
                # arena added to format 1 as startup_ms was: the version that played the game,
                # which the report shows (it is built later, perhaps by another version)
                "arena": __version__, "game": self.game.info.id, "rules": self.rules,
                "seed": self.seed, "players": len(self.seats),
                "bots": [{"seat": s.seat, "name": s.player.name, "version": s.player.version,
                          "builtin": s.player.builtin} for s in self.seats],
                # startup_ms added to format 1 (readers ignore keys they do not know; a
                # replay written before it lacks it): the report shows the whole time control
                "time": {"move_ms": self.time.move_ms, "bank_ms": self.time.bank_ms,
                         "startup_ms": self.time.startup_ms},
                "max_faults": self.policy.max_faults})

    def _details(self, outcome: Outcome) -> dict[str, Json]:
        details: dict[str, Json] = {**outcome.details, **self.annotations}
        if self.forfeits:
            details["forfeits"] = self.forfeits
        alarms = [*details.get("alarms", []), *self.alarms]
        if alarms:
            details["alarms"] = alarms
        return details

    def _finish(self, outcome: Outcome) -> GameRecord:
        forfeited = [s.seat for s in self.seats if s.forfeit is not None]
        if outcome.termination is not Termination.ENGINE_ERROR:
            outcome = with_forfeits(outcome, {s.seat: s.forfeit_at for s in self.seats
                                              if s.forfeit is not None})
        for seat in self.seats:
            if seat.started and seat.player.peer is not None and seat.forfeit not in (
                    ForfeitReason.CRASHED, ForfeitReason.DISCONNECTED):
                self.transport.send(seat.player.peer, encode(GameOver(
                    seat=seat.seat, termination=outcome.termination.value,
                    placings=list(outcome.placings), scores=list(outcome.scores),
                    forfeited=forfeited, events=seat.pending)))
        record = GameRecord(
            self.game.info.id, self.rules, self.seed, outcome.termination,
            tuple(SeatRecord(s.seat, s.player.name, s.player.version, outcome.placings[s.seat],
                             outcome.scores[s.seat], s.faults, s.timeouts, s.forfeit, s.time_ms)
                  for s in self.seats),
            self.n, tuple(self.faults), self._details(outcome),
            str(self.replay.path) if self.replay is not None else None)
        if self.replay is not None:
            self.replay.write({"type": "outcome", **outcome.to_json(), "record": record.to_json()})
        return record
