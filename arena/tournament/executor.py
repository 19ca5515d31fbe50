"""Where games are played: the seam between the runners (tournament, compare, ladder) and
the machines.

An executor takes jobs and gives back events (see `workers.Event`: `start`, `bots`, `done`,
`retry`); by the time it says `done`, the game is committed to the run's database. Two
exist: `local` (worker processes on this machine, `arena.tournament.workers.Pool`) and
`dask` (tasks on a Dask cluster, `arena.tournament.cluster`). Neither changes a result:
every game's seed comes with its job.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

from arena.core.record import GameRecord
from arena.tournament.store import GameKey, Store
from arena.tournament.workers import Event, Pool

if TYPE_CHECKING:
    from arena.tournament.runner import Job, Runner

class Executor(Protocol):
    """Plays submitted games; a context manager that stops its workers on exit."""

    def __enter__(self) -> Executor: ...

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...

    def submit(self, job: Job) -> None:
        """Queue one game."""

    def next_event(self) -> Event | None:
        """The next event, or None when nothing happened for a short while.

        Raises:
            ArenaError: a game failed, or killed its workers too often.
            DiskFull: a write failed for lack of space.
        """


def open_executor(runner: Runner, store: Store,
                  lookup: Callable[[GameKey], GameRecord | None] | None = None) -> Executor:
    """The runner's executor: its cluster's when it has one, else local worker processes.

    `lookup` finds a committed game by its key (default: a scan of `store`); the local pool
    asks it when a worker dies, to tell a game lost from one committed just before.
    """
    if runner.cluster is None:
        return Pool(runner, lookup or functools.partial(stored, store))
    from arena.tournament.cluster import DaskExecutor

    return DaskExecutor(runner, store, runner.cluster)


def stored(store: Store, key: GameKey) -> GameRecord | None:
    """Return the committed record of one game, if any (rarely needed: no index by key)."""
    return next((g.record for g in store.games() if g.key == key), None)
