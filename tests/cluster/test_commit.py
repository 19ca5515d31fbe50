"""The coordinator's commit of a game played on the cluster: a commit that fails leaves no
replay behind and says which game, in one line, as a local worker's does."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.core.errors import ArenaError
from arena.tournament.cluster import DaskExecutor
from arena.tournament.cluster_worker import Done
from arena.tournament.store import GameKey, Store
from arena.tournament.workers import DiskFull
from tests.tournament.test_store import record

KEY = GameKey(1, 0, 0)


def _executor(out: Path, add_game: Any) -> DaskExecutor:
    executor = DaskExecutor.__new__(DaskExecutor)  # no cluster: only its commit is tried
    executor.runner = SimpleNamespace(out=out)  # type: ignore[assignment]
    executor.store = SimpleNamespace(add_game=add_game)  # type: ignore[assignment]
    (out / "replays").mkdir()
    return executor


def _done() -> Done:
    return Done(record(5, ("a", 1), ("b", 2)).to_json(), b'{"type": "x"}\n', (), (), "w", 0)


def _refuse(error: Exception) -> Any:
    def add_game(key: GameKey, game: Any) -> bool:
        raise error
    return add_game


@pytest.mark.parametrize(("error", "kind", "words"), [
    (sqlite3.OperationalError("database or disk is full"), DiskFull,
     "while storing game r1-t0-g0"),
    (sqlite3.OperationalError("no such table: seats"), ArenaError,
     "could not commit game r1-t0-g0 to "),
])
def test_a_failed_commit_leaves_no_replay_and_names_the_game(
        tmp_path: Path, error: Exception, kind: type[Exception], words: str) -> None:
    executor = _executor(tmp_path, _refuse(error))
    with pytest.raises(kind, match=words) as raised:
        executor._commit(KEY, _done())
    assert "--resume" in str(raised.value)
    assert not (tmp_path / "replays" / f"{KEY}.jsonl").exists()


def test_a_commit_stores_the_game_and_its_replay(tmp_path: Path) -> None:
    store = Store.open(tmp_path, "abc", "t", create=True)
    executor = _executor(tmp_path, store.add_game)
    stored = executor._commit(KEY, _done())
    assert (tmp_path / "replays" / f"{KEY}.jsonl").read_bytes() == _done().replay
    [game] = store.games()
    assert game.record == stored
