"""Bytes <-> typed messages. Everything a bot sends is untrusted: decoding either returns
a typed message or raises `WireError` with the fault kind it amounts to.
"""

from __future__ import annotations

from typing import TypeVar

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
    if isinstance(message, Action) and \
            frame.count(b"[") + frame.count(b"{") > MAX_DEPTH and _deeper(message.action):
        raise WireError(FaultKind.BAD_MESSAGE, f"the action is nested deeper than {MAX_DEPTH} "
                                               "levels")
    return message


MAX_DEPTH = 32
"""How deep a bot's action may nest lists and objects. Deeper data would reach code that
recurses over it (the engine's checks, the replay's encoder) near Python's recursion limit,
where it raises RecursionError instead of a fault: a 2 KB message crashed the referee."""


def _deeper(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests lists and dicts more than `limit` levels (iterative: no
    recursion over what a bot sent)."""
    level: list[object] = [value]
    for _ in range(limit):
        level = [child for item in level if isinstance(item, list | dict)
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return False
    return any(isinstance(item, list | dict) for item in level)


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


def _decode(decoder: msgspec.json.Decoder[T], frame: bytes) -> T:
    """Decode with `decoder`, telling JSON that is not a message from bytes that are not JSON."""
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


QUOTED = 60
"""How many bytes of a frame that is not JSON its fault quotes (a debugging line printed
where the protocol goes is then recognisable)."""


def _quote(frame: bytes) -> str:
    """The start of a frame as compact JSON text (PROTOCOL.md §4.7: quotes are JSON)."""
    text = msgspec.json.encode(frame[:QUOTED].decode("utf-8", "replace")).decode()
    return text + (" ..." if len(frame) > QUOTED else "")

