"""Test doubles for the tournament layer: a toy game and a referee with the real interface.

`FakeReferee` has exactly the interface of `arena.referee.Referee` and plays a game in
microseconds: each seat draws a score from the game seed, scaled by its bot's `STRENGTH`
env value, so results are deterministic and stronger bots win more often.
"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

from arena.core.errors import ConfigError
from arena.core.game import GameInfo, Json, OptionSpec, Termination, placings_from_keys
from arena.core.options import raise_problems, resolve_options
from arena.core.record import Fault, FaultKind, GameRecord, SeatRecord
from arena.core.registry import Registry
from arena.referee.limits import Cgroup, Limits, detect
from arena.referee.spec import BotSpec, FaultPolicy, TimeControl
from arena.tournament.store import GameKey, Store


class ToyGame:
    """Only what config validation needs: `info` and `resolve_rules`."""

    info: ClassVar[GameInfo] = GameInfo(
        "toy", 1, "Toy", 2, 6, (OptionSpec("target", 10, "points to win", None),))

    def resolve_rules(self, players: int, rules: Mapping[str, Json]) -> dict[str, Json]:
        if not self.info.min_players <= players <= self.info.max_players:
            raise ConfigError(f"toy seats 2 to 6, not {players}")
        resolved, problems = resolve_options("toy", self.info.options, rules)
        raise_problems("toy", problems)
        return resolved


def toy_registry() -> Registry:
    registry = Registry()
    registry.register(ToyGame())  # type: ignore[arg-type]
    return registry


class FakeReferee:
    """Same constructor, context manager and `play` as the real referee; no processes."""

    def __init__(self, bots: Sequence[BotSpec], time: TimeControl, faults: FaultPolicy,
                 workdir: Path) -> None:
        self.bots = {b.name: b for b in bots}
        self.workdir = workdir

    def __enter__(self) -> FakeReferee:
        self.workdir.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        return None

    def versions(self) -> dict[str, str]:
        return {name: "1.0" for name in self.bots}

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        rng = random.Random(seed)
        strengths = [float(self.bots[b].env.get("STRENGTH", "1")) for b in seating]
        scores = [int(rng.random() * 100 * s) for s in strengths]
        placings = placings_from_keys([(s,) for s in scores])
        faults = tuple(Fault(i, FaultKind.TIMEOUT, "slow", 0) for i, b in enumerate(seating)
                       if self.bots[b].env.get("FAULTY") and rng.random() < 0.5)
        seats = tuple(
            SeatRecord(i, b, "1.0", placings[i], scores[i],
                       faults=sum(1 for f in faults if f.seat == i),
                       timeouts=sum(1 for f in faults if f.seat == i), time_ms=1.0)
            for i, b in enumerate(seating))
        if replay is not None:
            replay.write_text(json.dumps({"seed": seed, "seating": list(seating)}) + "\n")
        return GameRecord(game, dict(rules), seed, Termination.COMPLETED, seats, 10, faults,
                          {}, str(replay) if replay else None)


VICTIM = "r1-t0-g1"
"""The game the failing referees below fail on (it exists in every schedule the tests use)."""


def out_of(replay: Path | None) -> Path:
    """The run's output directory, from a replay path (OUT/replays/KEY.jsonl)."""
    assert replay is not None
    return replay.parent.parent


def half_a_replay(replay: Path) -> None:
    """Leave a replay file cut off mid-game, as a death or a full disk would."""
    replay.write_text('{"type": "header", "cut": ')


class DiesOnceReferee(FakeReferee):
    """Its worker process dies (exit status 3) in game VICTIM, the first time only."""

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        marker = out_of(replay) / "died-once"
        if replay is not None and replay.stem == VICTIM and not marker.exists():
            marker.touch()
            half_a_replay(replay)
            os._exit(3)
        return super().play(game, rules, seed, seating, replay)


class OrphaningReferee(FakeReferee):
    """In game VICTIM, the first time, it puts a sleeper of its own into a bot's cgroup
    (as a bot start does), writes `orphan` (its pid, the sleeper's), and dies: what a worker
    killed mid-game leaves."""

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        marker = out_of(replay) / "orphan"
        if replay is not None and replay.stem == VICTIM and not marker.exists():
            group = Cgroup.create(detect()[0], "orphan", Limits())
            # it waits for a signal, not for a time: only the coordinator's kill ends it
            sleeper = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"],
                                       preexec_fn=group.join)
            marker.write_text(f"{os.getpid()} {sleeper.pid}")
            os._exit(3)
        return super().play(game, rules, seed, seating, replay)


class AlwaysDiesReferee(FakeReferee):
    """Its worker process is killed (SIGKILL, as the OOM killer does) in game `victim`."""

    victim = VICTIM

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        if replay is not None and replay.stem == self.victim:
            half_a_replay(replay)
            os.kill(os.getpid(), signal.SIGKILL)
        return super().play(game, rules, seed, seating, replay)


class FullDiskReferee(FakeReferee):
    """The disk fills up while game `victim`'s replay is written."""

    victim = VICTIM

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        if replay is not None and replay.stem == self.victim:
            half_a_replay(replay)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(replay))
        return super().play(game, rules, seed, seating, replay)


class FullDatabaseReferee(FakeReferee):
    """SQLite finds the disk full when game VICTIM is committed (in the worker process)."""

    def __enter__(self) -> FakeReferee:
        commit = Store.add_game

        def add_game(store: Store, key: GameKey, record: GameRecord) -> bool:
            if str(key) == VICTIM:
                raise sqlite3.OperationalError("database or disk is full")
            return commit(store, key, record)

        Store.add_game = add_game  # type: ignore[method-assign, assignment]
        return super().__enter__()


class BigReplayReferee(FakeReferee):
    """Writes 64 KB replays, to fill a small disk."""

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        record = super().play(game, rules, seed, seating, replay)
        if replay is not None:
            with replay.open("a") as out:
                out.write(json.dumps({"padding": "x" * 65_536}) + "\n")
        return record


def any_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


class EnvironReferee(FakeReferee):
    """Writes its worker's ARENA_TEST_MARK environment variable into each replay file."""

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        record = super().play(game, rules, seed, seating, replay)
        if replay is not None:
            replay.write_text(os.environ.get("ARENA_TEST_MARK", "") + "\n")
        return record
