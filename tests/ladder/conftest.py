"""Fixtures: a ladder directory with bots registered (the fake referee plays them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from arena.ladder import members
from arena.ladder.run import Budget, LadderRun, RunResult
from tests.tournament.fakes import FakeReferee

LADDER = """\
name: club
game: machiavelli
players_per_game: {seats}
seed: 7
batch: {batch}
"""

MakeLadder = Callable[..., Path]


@pytest.fixture
def make_ladder(tmp_path: Path) -> MakeLadder:
    """Return a function that creates a ladder of `bots` bots (STRENGTH 1, 2, ...)."""
    def make(bots: int = 4, seats: int = 2, batch: int = 4, name: str = "ladder",
             extra: str = "") -> Path:
        directory = tmp_path / name
        members.init(directory, config_text=LADDER.format(seats=seats, batch=batch) + extra)
        for i in range(bots):
            members.add(directory, f"bot{i}", "builtin:random", version="v1",
                        env={"STRENGTH": str(i + 1)})
        return directory
    return make


def play(directory: Path, games: int) -> RunResult:
    """One run of `games` games with the fake referee and one worker."""
    return LadderRun(directory, Budget(games=games), concurrency=1,
                     referee=FakeReferee).run()
