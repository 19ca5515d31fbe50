"""Test doubles for the tournament layer: a toy game and a referee with the real interface.

`FakeReferee` has exactly the interface of `arena.referee.Referee` and plays a game in
microseconds: each seat draws a score from the game seed, scaled by its bot's `STRENGTH`
env value, so results are deterministic and stronger bots win more often.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

from arena.core.errors import ConfigError
from arena.core.game import GameInfo, Json, OptionSpec, Termination, placings_from_keys
from arena.core.options import raise_problems, resolve_options
from arena.core.record import Fault, FaultKind, GameRecord, SeatRecord
from arena.core.registry import Registry
from arena.referee.spec import BotSpec, FaultPolicy, TimeControl


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
        self.delay = float(os.environ.get("ARENA_FAKE_DELAY", "0"))

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
        if self.delay:
            time.sleep(self.delay)
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


def any_json(value: Any) -> Any:
    return json.loads(json.dumps(value))
