"""The built-in game engines. Importing this package registers them.

Engines import only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.registry import REGISTRY

__all__ = ["REGISTRY"]


def _register_builtins() -> None:
    import importlib

    for module in ("arena.games.machiavelli", "arena.games.rummy"):
        try:
            engine = importlib.import_module(module)
        except ModuleNotFoundError as exc:  # a game still being written is simply absent
            if exc.name != module:
                raise
            continue
        REGISTRY.register(engine.GAME)


_register_builtins()
