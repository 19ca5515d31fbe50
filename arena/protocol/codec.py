"""Bytes <-> typed messages. Everything a bot sends is untrusted: decoding either returns
a typed message or raises `WireError` with the fault kind it amounts to.
"""

from __future__ import annotations

import functools
import gc
from typing import Any, TypeVar

import msgspec

from arena.core.errors import ProtocolError
from arena.core.faults import FaultKind
from arena.protocol.messages import MAX_MESSAGE_BYTES, Action, BotMessage, RefereeMessage

T = TypeVar("T")

_encoder = msgspec.json.Encoder()
_bot_decoder = msgspec.json.Decoder(BotMessage)
_referee_decoder = msgspec.json.Decoder(RefereeMessage)


class WireError(ProtocolError):
    """A frame that is not a valid protocol message; `kind` says which fault it is."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind.value}: {detail}")


def encode(message: msgspec.Struct) -> bytes:
    """Return the JSON frame for a message."""
    return _encoder.encode(message)


def decode_bot(frame: bytes, limit: int = MAX_MESSAGE_BYTES) -> BotMessage:
    """Parse a frame sent by a bot.

    Raises:
        WireError: oversize, not UTF-8 JSON, or JSON that is not a bot message.
    """
    if len(frame) > limit:
        raise WireError(FaultKind.OVERSIZE, f"{len(frame)} bytes, limit {limit}")
    try:
        message = _decode(_bot_decoder, frame)
    except WireError as exc:
        if exc.kind is FaultKind.BAD_MESSAGE and _names_type(exc.detail):
            raise WireError(exc.kind, f"{exc.detail}; {BOT_TYPES}") from None
        raise
    # counting brackets is C-speed and bounds the depth: the walk runs only where it may
    # exceed it (a rummy table's melds), not on an ordinary action
    if isinstance(message, Action) and frame.count(b"[") + frame.count(b"{") > MAX_DEPTH and \
            (problem := _shape_problem(message.action)) is not None:
        raise WireError(FaultKind.BAD_MESSAGE, problem)
    return message


MAX_DEPTH = 32
"""How deep a bot's action may nest lists and objects. Deeper data would reach code that
recurses over it (the engine's checks, the replay's encoder) near Python's recursion limit,
where it raises RecursionError instead of a fault: a 2 KB message crashed the referee."""
MAX_CONTAINERS = 10_000
"""How many lists and objects a bot's action may hold (a rummy table of 108 cards holds at
most 38). The walk that checks the depth stops there: over 500,000 small lists, a 1 MiB
frame's worth, it cost the referee 0.2 s of CPU a frame."""


def _shape_problem(value: object, depth: int = MAX_DEPTH,
                   most: int = MAX_CONTAINERS) -> str | None:
    """Why `value` nests lists and dicts more than `depth` levels or holds more than `most`
    of them, or None (iterative: no recursion over what a bot sent)."""
    level: list[Any] = [value] if isinstance(value, list | dict) else []
    seen = len(level)
    for _ in range(depth):
        below: list[Any] = []
        for item in level:
            below.extend(child for child in (item.values() if isinstance(item, dict) else item)
                         if isinstance(child, list | dict))
            if seen + len(below) > most:
                return f"the action holds more than {most} arrays and objects"
        if not below:
            return None
        level, seen = below, seen + len(below)
    return f"the action is nested deeper than {depth} levels"


class _Head(msgspec.Struct):
    """What a frame is known by before it is decoded whole: its type, its id and whether it
    carries an action (skipped, not built: `msgspec.Raw` only marks where it lies)."""

    type: str = ""
    id: Any = None
    action: msgspec.Raw = msgspec.Raw()


@functools.cache
def _head_decoder() -> msgspec.json.Decoder[_Head]:
    return msgspec.json.Decoder(_Head)  # made at first use: not at every bot's start


PEEK_BYTES = 1 << 12
"""Frames longer than this are `peek`ed at before they are decoded whole where only their type
or id may matter (an honest bot's reply is a few hundred bytes: its round trip pays nothing)."""


def peek(frame: bytes, limit: int = MAX_MESSAGE_BYTES) -> tuple[str, int | None] | None:
    """The `type` of a bot's frame, and the `id` of an action (an integer >= 1, with an
    `action`; else None), read at C speed without building what it carries; None for a frame
    `decode_bot` would refuse outright (oversize, not JSON, not an object).

    Why: a reply to a request that is not pending is dropped for its id, and anything but a
    hello before a bot's hello for its type; decoding them whole, 1 MiB of small nested
    lists cost the referee 0.2-0.6 s of CPU a frame (5-10 ms so), one after another.
    """
    if len(frame) > limit:
        return None
    try:
        head = _head_decoder().decode(frame)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return None
    got = head.id
    valid = type(got) is int and got >= 1 and len(head.action) > 0
    return head.type, got if head.type == "action" and valid else None


BOT_TYPES = ('a bot sends two messages: {"type":"hello",...} first, then '
             '{"type":"action","id":ID,"action":...} for each request')
"""Added to a fault about a bot message's `type`: msgspec names the bad value, not the good."""


def _names_type(detail: str) -> bool:
    return detail.endswith("at `$.type`") or detail.endswith("field `type`")


def decode_referee(frame: bytes) -> RefereeMessage:
    """Parse a frame sent by the referee (used by bots and tests).

    Raises:
        WireError: not a referee message.
    """
    return _decode(_referee_decoder, frame)


PAUSE_GC_BYTES = 1 << 16
"""Frames longer than this are decoded with the cyclic collector off: the objects a decoder
makes cannot form cycles, and 1 MiB of small lists set off passes over the whole heap that
made its decoding 5 times slower (102 -> 19 ms)."""


def _decode(decoder: msgspec.json.Decoder[T], frame: bytes) -> T:
    """Decode with `decoder`, telling JSON that is not a message from bytes that are not JSON."""
    pause = len(frame) > PAUSE_GC_BYTES and gc.isenabled()
    if pause:
        gc.disable()
    try:
        return decoder.decode(frame)
    except RecursionError:  # nested deeper than the decoder goes (~1,000 levels)
        raise WireError(FaultKind.BAD_MESSAGE, "nested too deep to decode (arrays or objects "
                                               f"more than {MAX_DEPTH} levels deep)") from None
    except msgspec.ValidationError as exc:
        raise WireError(FaultKind.BAD_MESSAGE, str(exc)) from None
    except msgspec.DecodeError as exc:
        raise WireError(FaultKind.NOT_JSON, f"{exc}; the message begins "
                                            f"{_quote(frame)}") from None
    finally:
        if pause:
            gc.enable()


QUOTED = 60
"""How many bytes of a frame that is not JSON its fault quotes (a debugging line printed
where the protocol goes is then recognisable)."""


def _quote(frame: bytes) -> str:
    """The start of a frame as compact JSON text (PROTOCOL.md §4.7: quotes are JSON)."""
    text = msgspec.json.encode(frame[:QUOTED].decode("utf-8", "replace")).decode()
    return text + (" ..." if len(frame) > QUOTED else "")

