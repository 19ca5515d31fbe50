"""The game registry: game names and versioned ids to engine objects.

Games register themselves from `arena.games`; outer rings import `arena.games.REGISTRY`,
which guarantees the built-in games are loaded.
"""

from __future__ import annotations

from typing import Any

from arena.core.errors import ConfigError
from arena.core.game import Game, GameInfo

AnyGame = Game[Any, Any]


class Registry:
    """Registered engines by name; several versions of one game may coexist."""

    def __init__(self) -> None:
        self._games: dict[str, dict[int, AnyGame]] = {}

    def register(self, game: AnyGame) -> None:
        """Add an engine under its name and version."""
        versions = self._games.setdefault(game.info.name, {})
        if game.info.version in versions:
            raise ValueError(f"{game.info.id} is already registered")
        versions[game.info.version] = game

    def get(self, name: str) -> AnyGame:
        """Return the engine for `name` (latest version) or `name@version`.

        Raises:
            ConfigError: unknown game or version; the message lists the known ones.
        """
        base, _, version = name.partition("@")
        versions = self._games.get(base)
        if versions is None:
            known = ", ".join(self.names()) or "none"
            raise ConfigError(f"unknown game {name!r}; known games: {known}")
        if not version:
            return versions[max(versions)]
        if not version.isdigit() or int(version) not in versions:
            known = ", ".join(f"{base}@{v}" for v in sorted(versions))
            raise ConfigError(f"unknown version {name!r}; known versions: {known}")
        return versions[int(version)]

    def names(self) -> list[str]:
        """Return the registered game names, sorted."""
        return sorted(self._games)

    def infos(self) -> list[GameInfo]:
        """Return the latest `GameInfo` of every game, sorted by name."""
        return [self.get(name).info for name in self.names()]


REGISTRY = Registry()
