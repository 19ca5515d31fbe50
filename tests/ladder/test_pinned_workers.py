"""A ladder's `pin_workers` (ladder.yaml, or `arena ladder run --pin-workers`): each local
worker, and every bot it starts, runs on one core of its own; the key is checked like a
tournament file's, changes no game, and is refused with a Dask cluster."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.errors import ConfigError
from arena.ladder import members
from arena.ladder.config import parse_ladder
from arena.ladder.run import Budget, LadderRun
from arena.ladder.store import LadderStore
from tests.ladder.conftest import MakeLadder
from tests.tournament.test_pinned_workers import (
    AFFINITY,
    CORES,
    RANDOM,
    check_pinned,
    logged_cores,
    outcome,
)

SALT = "5a17" * 16 + "\n"


def played(pin: str, tmp_path: Path) -> tuple[list[list[int]], str]:
    """Play 8 games between 3 Python bots with 2 workers (`pin`: ladder.yaml's
    `pin_workers` value); return the cores each bot process said it may use, and the games."""
    directory = tmp_path / f"ladder-{pin}"
    members.init(directory, config_text="game: machiavelli\nplayers_per_game: 2\nseed: 5\n"
                                        f"batch: 4\nsandbox: none\npin_workers: {pin}\n")
    (directory / "secret.salt").write_text(SALT)  # both ladders deal the same games
    for i in range(3):
        members.add(directory, f"py{i}", f"{sys.executable} {AFFINITY} {RANDOM}",
                    version="v1")
    LadderRun(directory, Budget(games=8), concurrency=2).run()
    store = LadderStore.open(directory)
    try:
        games = outcome((g.key, g.record) for g in store.store.games())
    finally:
        store.close()
    return logged_cores(directory / "logs"), games


@pytest.mark.skipif(len(CORES) < 2, reason="pinning is seen only with two cores or more")
def test_a_pinned_ladder_runs_each_bot_on_one_core_to_the_same_games(tmp_path: Path) -> None:
    pinned, pinned_games = played("true", tmp_path)
    floating, games = played("false", tmp_path)
    assert pinned_games == games
    check_pinned(pinned, floating, workers=2)


def test_the_flag_pins_a_ladder_whose_file_does_not(make_ladder: MakeLadder) -> None:
    directory = make_ladder()
    assert not LadderRun(directory, Budget(games=1)).config.base.pin_workers
    assert LadderRun(directory, Budget(games=1), pin_workers=True).config.base.pin_workers


def test_a_bad_value_is_one_line_with_the_file_and_line() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_ladder("game: machiavelli\nseed: 1\npin_workers: often\n", "ladder.yaml")
    assert caught.value.problems == [
        "ladder.yaml:3: 'pin_workers' must be true or false, not 'often'"]


def test_pinning_with_a_dask_cluster_is_refused_in_one_line(make_ladder: MakeLadder) -> None:
    directory = make_ladder()
    result = CliRunner().invoke(main, ["ladder", "run", str(directory), "--pin-workers",
                                       "--cluster", "local:2"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--pin-workers pins the local workers; the games of this run go to the Dask " \
           "cluster local:2" in result.output
    store = LadderStore.open(directory)
    try:
        assert store.game_count() == 0
    finally:
        store.close()
