"""The Python side of the wire protocol: typed messages, codec, schema export.

The human specification is `protocol/PROTOCOL.md`. Imports only msgspec, the standard
library and `arena.core`.
"""

from __future__ import annotations

from arena.protocol.codec import WireError, decode_bot, decode_referee, encode
from arena.protocol.messages import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Action,
    BotMessage,
    Error,
    ErrorCode,
    GameOver,
    GameStart,
    Hello,
    RefereeMessage,
    Request,
    Shutdown,
    Welcome,
)

__all__ = [
    "MAX_MESSAGE_BYTES", "PROTOCOL_VERSION", "Action", "BotMessage", "Error", "ErrorCode",
    "GameOver", "GameStart", "Hello", "RefereeMessage", "Request", "Shutdown", "WireError",
    "Welcome", "decode_bot", "decode_referee", "encode",
]
