"""A small client library for bots written in Python.

A bot is a function from a `Request` (and, if it takes a second argument, the game's
`random.Random`) to an action, or a `Bot` subclass for more hooks::

    from arena.client import run

    def act(request, rng):
        return rng.choice(request.options)

    run(act, name="random", version="1.0")

Reproducible randomness: at every `game_start` the client seeds a fresh `random.Random`
from the message's `bot_seed` (`Bot.rng`, or the second argument of a function bot) and
also seeds the global `random` module with it. A bot that draws only from these plays the
same game again for the same game seed, whatever it played before in the same process,
which is what `arena play --seed` and `arena run --resume` rely on.

Cheap requests: the client decodes a `request`'s `observation` and `events` only when the
bot first reads them (`Request.observation`, `Request.events`); a bot that looks only at the
options does not pay for parsing the rest of the frame (most of its bytes).

`run` reads where to connect from `--endpoint`/`--token` or from the ARENA_ENDPOINT and
ARENA_TOKEN environment variables the referee sets, says hello, then answers requests
until the referee sends `shutdown`.
"""

from __future__ import annotations

import abc
import gc
import os
import random
import sys
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from arena import _quiet_import  # first: the collector waits for the imports (see there)
from arena._msgspec import msgspec  # before the rest: see there (a bot's start-up time)
from arena._zmtp import LinkClosed, dial
from arena.core.faults import FaultKind
from arena.protocol.codec import WireError, encode
from arena.protocol.messages import (
    PROTOCOL_VERSION,
    Action,
    Error,
    GameOver,
    GameStart,
    Hello,
    Shutdown,
    Welcome,
)

if TYPE_CHECKING:
    import zmq

_quiet_import.resume()


class Link(Protocol):
    """What `run` needs of a connection to the referee: whole frames in and out
    (`arena._zmtp.Dealer`, or a pyzmq DEALER for endpoints it does not speak)."""

    def send(self, frame: bytes) -> object:
        """Send one frame (one message)."""
        ...

    def recv(self) -> bytes:
        """Return the next frame, waiting for it."""
        ...

    def close(self, linger: int | None = None) -> None:
        """End the connection."""
        ...

Json = Any
"""A JSON-ready value, as `arena.core.game.Json` (not imported from there: the engine
contract's dataclasses would add to every Python bot's start-up)."""

__all__ = ["Bot", "Error", "GameOver", "GameStart", "Request", "Strategy", "connect",
           "decode_message", "open_link", "run", "start_game"]


if TYPE_CHECKING:  # a request built by hand holds parsed values
    _RawObservation = msgspec.Raw | dict[str, Json]
    _RawEvents = msgspec.Raw | list[dict[str, Json]]
else:  # what the decoder stores: the raw JSON text, parsed on first access
    _RawObservation = _RawEvents = msgspec.Raw


class _RequestFields(msgspec.Struct, tag_field="type", tag="request"):
    """The fields of a `request` as stored: `observation` and `events` hold raw JSON until
    `Request` parses them."""

    id: int
    kind: str
    seat: int
    observation: _RawObservation
    events: _RawEvents
    options: list[Json] | None
    context: dict[str, Json]
    move_ms: int
    bank_ms: int


# The raw slots behind Request's parsing properties. Decoding a frame straight into the
# class a bot receives (no second object built from a decoded one) saves ~1 us of a Python
# bot's time per request (bench/protocol.py, bot process).
_OBSERVATION = _RequestFields.__dict__["observation"]
_EVENTS = _RequestFields.__dict__["events"]


class Request(_RequestFields, tag="request"):
    """The referee asks for an action: the fields of the protocol's `request` message.

    `observation` and `events` are parsed from the frame on first access (then kept); built
    by hand, a request holds the values given.
    """

    # a property over the raw field (_OBSERVATION), which type checkers see as a conflict
    @property  # type: ignore[misc]
    def observation(self) -> dict[str, Json]:  # type: ignore[override]
        """Everything this seat may know now."""
        value = _OBSERVATION.__get__(self)
        if isinstance(value, msgspec.Raw):
            value = _lazy(_decode_observation, value, "observation")
            _OBSERVATION.__set__(self, value)
        return cast(dict[str, Json], value)

    @property  # type: ignore[misc]
    def events(self) -> list[dict[str, Json]]:  # type: ignore[override]
        """The events this seat may see since its previous request."""
        value = _EVENTS.__get__(self)
        if isinstance(value, msgspec.Raw):
            value = _lazy(_decode_events, value, "events")
            _EVENTS.__set__(self, value)
        return cast(list[dict[str, Json]], value)

    def __repr__(self) -> str:
        return (f"Request(id={self.id}, kind={self.kind!r}, seat={self.seat}, "
                f"options={self.options!r}, context={self.context!r})")


_FromReferee = Welcome | GameStart | Request | GameOver | Error | Shutdown
_decode: Callable[[bytes], _FromReferee] = msgspec.json.Decoder(_FromReferee).decode
_decode_observation = msgspec.json.Decoder(dict[str, Json]).decode
_decode_events = msgspec.json.Decoder(list[dict[str, Json]]).decode


def _lazy(decode: Callable[[msgspec.Raw], Any], raw: msgspec.Raw, field: str) -> Any:
    try:
        return decode(raw)
    except msgspec.ValidationError as exc:
        raise WireError(FaultKind.BAD_MESSAGE, f"request.{field}: {exc}") from None


def decode_message(frame: bytes) -> _FromReferee:
    """Parse a frame from the referee (a `request` becomes a lazily parsed `Request`).

    Raises:
        WireError: not a referee message.
    """
    try:
        return _decode(frame)
    except msgspec.ValidationError as exc:
        raise WireError(FaultKind.BAD_MESSAGE, str(exc)) from None
    except msgspec.DecodeError as exc:
        raise WireError(FaultKind.NOT_JSON, str(exc)) from None


class Bot(abc.ABC):
    """Override `act`, and the other hooks if the bot keeps state between requests."""

    rng: random.Random = random.Random(0)
    """This game's generator, seeded from `game_start.bot_seed` before `game_start` runs."""

    def game_start(self, start: GameStart) -> None:
        """A game begins (seat, players, rules, time control); optional, does nothing."""
        return None

    @abc.abstractmethod
    def act(self, request: Request) -> Json:
        """Return the action for `request` (often one of `request.options`)."""

    def game_over(self, over: GameOver) -> None:
        """A game ended (placings, scores); optional, does nothing."""
        return None

    def error(self, error: Error) -> None:
        """The referee rejected something this bot sent; printed to stderr by default."""
        print(f"arena: {error.code.value}: {error.detail}", file=sys.stderr, flush=True)


Strategy = Callable[[Request], Json] | Callable[[Request, random.Random], Json]
"""A function bot: `act(request)` or `act(request, rng)`."""


class _FunctionBot(Bot):
    def __init__(self, act: Strategy) -> None:
        # Decided once: typing casts and signature checks cost microseconds per request.
        if _positional_count(act) >= 2:
            with_rng = cast(Callable[[Request, random.Random], Json], act)
            self._act: Callable[[Request], Json] = lambda request: with_rng(request, self.rng)
        else:
            self._act = cast(Callable[[Request], Json], act)

    def act(self, request: Request) -> Json:
        return self._act(request)


def _positional_count(fn: Callable[..., object]) -> int:
    """How many positional parameters `fn` takes, as `inspect.signature` counts them.

    A plain function (or a method of one) is read from its code object; anything else (a
    partial, a callable object, a wrapped function) asks `inspect`, imported only then:
    `inspect` pulls in ast, dis and tokenize, ~10-20 ms of CPU at every Python bot's start
    where nothing else imports it (a function bot's start needs none of it).
    """
    target, bound = (fn.__func__, 1) if isinstance(fn, types.MethodType) else (fn, 0)
    if isinstance(target, types.FunctionType) and not hasattr(target, "__wrapped__") \
            and not hasattr(target, "__signature__") and target.__code__.co_argcount >= bound:
        return target.__code__.co_argcount - bound
    import inspect

    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: call it with one
        return 1
    return sum(p.kind in kinds for p in parameters)


def start_game(bot: Bot, start: GameStart) -> None:
    """Seed `bot.rng` and the global `random` from `start.bot_seed`, then call its hook."""
    bot.rng = random.Random(start.bot_seed)
    random.seed(start.bot_seed)
    bot.game_start(start)


def _where(argv: Sequence[str] | None) -> tuple[str, str]:
    endpoint, token = os.environ.get("ARENA_ENDPOINT"), os.environ.get("ARENA_TOKEN")
    if endpoint and token is not None and not (sys.argv[1:] if argv is None else argv):
        # how the referee starts a bot: nothing to parse, and argparse is ~4 ms of CPU at
        # each Python bot's start
        return endpoint, token
    import argparse

    parser = argparse.ArgumentParser(description="An arena bot.")
    parser.add_argument("--endpoint", default=os.environ.get("ARENA_ENDPOINT"),
                        help="referee endpoint (default: $ARENA_ENDPOINT)")
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"),
                        help="handshake token (default: $ARENA_TOKEN)")
    args, _ = parser.parse_known_args(argv)
    if not args.endpoint or args.token is None:
        parser.error("no endpoint/token: run me from `arena`, or pass --endpoint and --token")
    return str(args.endpoint), str(args.token)


def connect(name: str, version: str = "", argv: Sequence[str] | None = None,
            ) -> tuple[zmq.Socket[bytes], Welcome]:
    """Connect a pyzmq DEALER, say hello and return the socket with the referee's welcome:
    for a bot that wants a ZeroMQ socket of its own (`run` talks through `open_link`).

    Raises:
        SystemExit: the referee refused the handshake.
    """
    endpoint, token = _where(argv)
    socket = _zmq_dealer(endpoint)
    return socket, _hello(_ZmqLink(socket, socket.send), name, version, token)


def open_link(name: str, version: str = "", argv: Sequence[str] | None = None,
              ) -> tuple[Link, Welcome]:
    """Connect to the referee, say hello and return the connection with its welcome.

    The connection is `arena._zmtp`'s DEALER (no pyzmq in the bot: a cheaper start and
    round trip) for `ipc://` and `tcp://` endpoints, a pyzmq DEALER for any other.

    Raises:
        SystemExit: the referee could not be reached or refused the handshake.
    """
    endpoint, token = _where(argv)
    try:
        link: Link | None = dial(endpoint)
    except (LinkClosed, OSError) as exc:
        raise SystemExit(f"{name}: cannot reach the referee at {endpoint}: {exc}") from None
    if link is None:
        socket = _zmq_dealer(endpoint)
        link = _ZmqLink(socket, _compiled_send(socket))
    return link, _hello(link, name, version, token)


def _hello(link: Link, name: str, version: str, token: str) -> Welcome:
    try:
        link.send(encode(Hello(token=token, name=name, version=version,
                               protocol=PROTOCOL_VERSION)))
        reply = decode_message(link.recv())
    except LinkClosed as exc:
        raise SystemExit(f"{name}: handshake refused: {exc}") from None
    if not isinstance(reply, Welcome):
        detail = reply.detail if isinstance(reply, Error) else type(reply).__name__
        raise SystemExit(f"{name}: handshake refused: {detail}")
    return reply


def _zmq_dealer(endpoint: str) -> zmq.Socket[bytes]:
    import zmq  # only here: see arena/_zmtp.py (a bot's start-up time)

    socket: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 1000)
    socket.connect(endpoint)
    return socket


class _ZmqLink:
    """A pyzmq DEALER as a `Link` (endpoints other than ipc and tcp)."""

    def __init__(self, socket: zmq.Socket[bytes], send: Callable[[bytes], object]) -> None:
        self.recv: Callable[[], bytes] = socket.recv
        self.send = send
        self.close = socket.close


def _compiled_send(socket: zmq.Socket[bytes]) -> Callable[[bytes], object]:
    """Return `socket.send` without pyzmq's Python layer: `zmq.Socket.send` is a Python method
    around the compiled send that only adds draft sockets' `routing_id` and `group`; each
    action sent through the compiled one saves that call: 0.6 us with cold caches (after 150 us
    of engine work, pinned, 3 runs; 0.3 us warm)."""
    import zmq

    return cast(Callable[[bytes], object], types.MethodType(zmq.backend.Socket.send, socket))


def _freeze_for_exit() -> None:
    """Move every object alive into the cyclic collector's permanent generation (gc.freeze),
    so that the collections the interpreter runs on its way out skip them.

    What it buys: a Python bot's exit after `shutdown` cost ~12 ms less CPU (~23 -> ~11 ms
    outside the bot's own code, bench/tournament.py's "outside its meter"), paid at every
    bot process's end. Called only once the referee said `shutdown`: while the bot plays,
    the collector works as always; afterwards only cycles already garbage stay unfreed,
    and the process is ending.
    """
    gc.freeze()


def run(bot: Bot | Strategy, name: str, version: str = "",
        argv: Sequence[str] | None = None) -> None:
    """Play games until the referee says `shutdown` (then the objects alive are frozen for
    the cyclic collector, which makes the interpreter's exit cheaper: `gc.freeze`)."""
    player = bot if isinstance(bot, Bot) else _FunctionBot(bot)
    link, _ = open_link(name, version, argv)
    encode_action = msgspec.json.Encoder().encode
    recv, send = link.recv, link.send
    try:
        while True:
            message = decode_message(recv())
            if isinstance(message, Request):
                send(encode_action(Action(id=message.id, action=player.act(message))))
            elif isinstance(message, GameStart):
                start_game(player, message)
            elif isinstance(message, GameOver):
                player.game_over(message)
            elif isinstance(message, Error):
                player.error(message)
            elif isinstance(message, Shutdown):
                _freeze_for_exit()
                return
    except LinkClosed as exc:  # the referee is gone without a shutdown: nothing to play for
        raise SystemExit(f"{name}: {exc}") from None
    finally:
        link.close(linger=100)
