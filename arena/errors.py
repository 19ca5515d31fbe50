"""Re-export of the exception hierarchy (defined in `arena.core.errors`)."""

from arena.core.errors import (
    ArenaError,
    BotCrashed,
    BotError,
    BotTimeout,
    ConfigError,
    GameError,
    IllegalAction,
    MalformedAction,
    ProtocolError,
    StoreError,
)

__all__ = [
    "ArenaError",
    "BotCrashed",
    "BotError",
    "BotTimeout",
    "ConfigError",
    "GameError",
    "IllegalAction",
    "MalformedAction",
    "ProtocolError",
    "StoreError",
]
