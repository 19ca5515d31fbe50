"""A folder named `arena/` in the directory a run starts from never replaces the installed
package in the worker processes (`arena ladder run` and `arena run` alike): the fork server
they are forked from imports arena as the parent does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.ladder import members

SCRIPT = Path(sys.executable).parent / "arena"
TOURNAMENT = """\
name: shadowed
game: machiavelli
players_per_game: 2
sandbox: none
bots:
  - {name: a, cmd: 'builtin:random'}
  - {name: b, cmd: 'builtin:random'}
"""


@pytest.fixture
def shadowed(tmp_path: Path) -> Path:
    """A directory holding a package `arena` that stops any process importing it."""
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "__init__.py").write_text('raise SystemExit("shadow package")\n')
    return tmp_path


def in_dir(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], cwd=directory, capture_output=True,
                          text=True)


def test_a_ladder_run_from_a_directory_with_an_arena_folder_plays(shadowed: Path) -> None:
    directory = shadowed / "club"
    members.init(directory, config_text="game: machiavelli\nplayers_per_game: 2\nseed: 3\n"
                                        "sandbox: none\n")
    for name in ("a", "b"):
        members.add(directory, name, "builtin:random", version="v1")
    result = in_dir(shadowed, "ladder", "run", "club", "--games", "1", "-j", "1",
                    "--no-report")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "shadow package" not in result.stderr
    assert "1 game played" in result.stdout


def test_a_tournament_run_from_a_directory_with_an_arena_folder_plays(shadowed: Path) -> None:
    (shadowed / "t.yaml").write_text(TOURNAMENT)
    result = in_dir(shadowed, "run", "t.yaml", "--out", "out", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "shadow package" not in result.stderr
    assert (shadowed / "out" / "results.sqlite").is_file()
