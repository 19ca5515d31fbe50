"""Small real runs of both games (built-in bots, real replays), shared by the report tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

GAMES = ("machiavelli", "machiavelli-rummy")


def tournament(game: str) -> str:
    """A round-robin of four built-in bots at tables of three: four games."""
    bots = "".join(f"  - {{name: {name}, cmd: 'builtin:random'}}\n"
                   for name in ("ann", "bob", "cat", "dan"))
    return (f"name: tiny-{game}\ngame: {game}\nplayers_per_game: 3\ngames_per_pairing: 1\n"
            f"seed: 5\nbots:\n{bots}")


def play(directory: Path, game: str, *extra: str) -> Path:
    """Run the tournament of `game` into directory/run; return that directory."""
    file = directory / "t.yaml"
    file.write_text(tournament(game))
    out = directory / "run"
    result = CliRunner().invoke(main, ["run", str(file), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session", params=GAMES)
def finished_run(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of each game, with its report written by `arena run`."""
    return play(tmp_path_factory.mktemp(str(request.param)), str(request.param))
