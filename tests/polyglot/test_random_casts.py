"""Every starter bot, and the Python sample bots, play random casts and district sets
legally: `arena check-bot machiavelli -r cast=random -r district_preset=random` passes every
check (no fault: no illegal, malformed or late action) over many seeds at every table size
that the random cast changes (2 players: no rank 9; 3 and 8: rank 9 required; 5+: the
Queen allowed). New characters and districts reach these games as the engine plays them, so
a bot that trips on an id it does not know fails here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.polyglot.starters import STARTERS
from tests.polyglot.test_starters import built

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"
RUNS = ((2, 11), (3, 23), (5, 37), (8, 51))
"""(players, seed of the first game): three games each, so twelve deals per bot."""


def check_bot(argv: tuple[str, ...], players: int, seed: int, tcp: bool = False) -> None:
    args = ["check-bot", "machiavelli", "--games", "3", "--players", str(players),
            "--seed", str(seed), "-r", "cast=random", "-r", "district_preset=random",
            "--move-ms", "20000", "--startup-ms", "60000", *(["--tcp"] if tcp else []),
            "--", *argv]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"{' '.join(args)}\n{result.output}"
    assert "all checks passed" in result.output, result.output


@pytest.mark.parametrize(("players", "seed"), RUNS)
@pytest.mark.parametrize("bot", ["random_bot.py", "greedy_bot.py"])
def test_python_bots_play_random_casts_and_districts(bot: str, players: int,
                                                     seed: int) -> None:
    check_bot((sys.executable, str(SAMPLES / bot)), players, seed)


@pytest.mark.toolchain
@pytest.mark.parametrize("lang", list(STARTERS))
def test_starter_plays_random_casts_and_districts(lang: str) -> None:
    starter = built(lang)
    for players, seed in RUNS:
        check_bot(starter.argv, players, seed, starter.tcp)
