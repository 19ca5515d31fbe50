"""Who plays a seat in `run_game`: a remote bot (a peer on the transport), a built-in policy,
or nobody (a bot that never connected, whose seat the autopilot plays from the start).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from arena.core.errors import ConfigError
from arena.core.game import Game
from arena.core.record import ForfeitReason

BUILTINS = ("random", "default")
"""Built-in policies (`builtin:NAME`): uniformly random legal actions, or the engine's
deterministic default action."""


def _always_alive() -> bool:
    return True


def _no_breach() -> str | None:
    return None


def _ignore(why: str) -> None:
    pass


def _unknown_end() -> str:
    return "ended"


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """The player of one seat for one game."""

    name: str
    version: str = ""
    peer: bytes | None = None
    """The transport peer of a remote bot."""
    builtin: str | None = None
    """A built-in policy name (see `BUILTINS`)."""
    alive: Callable[[], bool] = _always_alive
    """False once the remote bot's process has ended (checked while waiting)."""
    absent: ForfeitReason | None = None
    """Set when the bot cannot play at all; the seat forfeits before the first decision."""
    why: str = ""
    """Why it is absent (`exited with status 1 before its hello`), for the record."""
    describe: Callable[[], str] = _unknown_end
    """How the remote bot's process ended (`killed by SIGKILL`), once it has."""
    breach: Callable[[], str | None] = _no_breach
    """The resource limit the remote bot hit (`memory: ...`), or None."""
    recheck: Callable[[], str | None] = _no_breach
    """`breach` read afresh, once, at the game's end (`breach` may lag by a sample)."""
    private: bool = True
    """Only this bot can reach its endpoint (ipc inside the sandbox): another connection on
    it is the bot's own doing. Over tcp, or unsandboxed, any local process can connect."""
    exceed: Callable[[str], None] = _ignore
    """Mark the remote bot over a limit (`breach` then names it): its process is stopped
    after the game."""
    former: AbstractSet[bytes] = frozenset()
    """The connections of the bot's earlier processes (the roster's own set, not a copy per
    game): what is still queued from them is stale, not another connection of this one."""

    def __post_init__(self) -> None:
        if self.builtin is not None and self.builtin not in BUILTINS:
            raise ConfigError(f"unknown built-in bot {self.builtin!r}; "
                              f"known: {', '.join(BUILTINS)}")
        if self.absent is None and (self.peer is None) == (self.builtin is None):
            raise ValueError(f"seat player {self.name!r} needs exactly one of peer, builtin")

    @classmethod
    def remote(cls, name: str, peer: bytes, version: str = "",
               alive: Callable[[], bool] = _always_alive, *,
               describe: Callable[[], str] = _unknown_end,
               breach: Callable[[], str | None] = _no_breach,
               recheck: Callable[[], str | None] = _no_breach,
               private: bool = True, exceed: Callable[[str], None] = _ignore,
               former: AbstractSet[bytes] = frozenset()) -> SeatPlayer:
        """A bot reached through the transport."""
        return cls(name, version, peer=peer, alive=alive, describe=describe, breach=breach,
                   recheck=recheck, private=private, exceed=exceed, former=former)


def builtin_action(policy: str, game: Game[Any, Any], state: Any, seat: int,
                   rng: random.Random) -> Any:
    """Return the action of a built-in policy."""
    if policy == "random":
        return game.random_action(state, seat, rng)
    return game.default_action(state, seat)
