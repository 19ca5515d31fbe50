"""The exception hierarchy: one root, one family per layer.

Lives in `core` so that engines may raise these without importing outer rings;
`arena.errors` re-exports it for everyone else.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Everything arena raises on purpose."""


class ConfigError(ArenaError):
    """A tournament file, rule option or CLI argument is wrong.

    `problems` holds every problem found, so a user can fix them in one pass.
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = problems if problems is not None else [message]
        super().__init__(message if problems is None else "\n".join([message, *problems]))


class GameError(ArenaError):
    """An action was rejected by a game engine (the state is left unchanged)."""


class IllegalAction(GameError):
    """A well-formed action that the rules forbid now."""


class MalformedAction(GameError):
    """An action payload that does not parse as any action of the decision asked."""


class ProtocolError(ArenaError):
    """Bytes or JSON from a bot that break the wire protocol."""


class BotError(ArenaError):
    """A failure attributable to one bot."""

    def __init__(self, bot: str, message: str) -> None:
        self.bot = bot
        super().__init__(f"{bot}: {message}")


class BotTimeout(BotError):
    """A bot did not answer in time."""


class BotCrashed(BotError):
    """A bot's process ended."""

    def __init__(self, bot: str, message: str, exit_code: int | None = None) -> None:
        self.exit_code = exit_code
        super().__init__(bot, message)


class StoreError(ArenaError):
    """The results database is unusable (corrupted, locked, or from another tournament)."""
