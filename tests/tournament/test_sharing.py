"""Bots whose programs share a folder are named: each could read the others' files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.referee.spec import BotSpec
from arena.tournament.sharing import shared_folders
from tests.security.zoo import need_bwrap

ROOT = Path(__file__).resolve().parents[2]


def bot(name: str, script: Path, cwd: Path | None = None) -> BotSpec:
    script.parent.mkdir(parents=True, exist_ok=True)
    script.touch()
    return BotSpec(name, (sys.executable, str(script)), str(cwd) if cwd else None)


def test_two_programs_in_one_folder_are_named_once(tmp_path: Path) -> None:
    bots = [bot("alice", tmp_path / "bots" / "alice.py", tmp_path),
            bot("bob", tmp_path / "bots" / "bob.py", tmp_path),
            BotSpec("house", ("builtin:random",))]
    [line] = shared_folders(bots)
    assert line.startswith(f"bots 'alice', 'bob' are given the same folder {tmp_path / 'bots'}")


def test_a_folder_each_or_one_program_twice_is_no_sharing(tmp_path: Path) -> None:
    apart = [bot("alice", tmp_path / "alice" / "bot.py", tmp_path / "alice"),
             bot("bob", tmp_path / "bob" / "bot.py", tmp_path / "bob")]
    assert shared_folders(apart) == []
    twice = [bot("r1", tmp_path / "r" / "bot.py"), bot("r2", tmp_path / "r" / "bot.py")]
    assert shared_folders(twice) == []


def test_dry_run_says_so(tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        (tmp_path / "bots").mkdir(exist_ok=True)
        (tmp_path / "bots" / f"{name}.py").write_text("")
    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 2\nbots:\n"
                    "  - {name: alice, cmd: 'python bots/alice.py'}\n"
                    "  - {name: bob, cmd: 'python bots/bob.py'}\n")
    result = CliRunner().invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "note: bots 'alice', 'bob' are given the same folder " in result.output


@pytest.mark.parametrize(("sandbox", "warned"), [
    ("sandbox: bwrap\n", True), ("", True), ("sandbox: none\n", False)],
    ids=["bwrap", "auto", "none"])
def test_a_sandboxed_run_is_warned_before_it_starts(tmp_path: Path, sandbox: str,
                                                   warned: bool) -> None:
    # with `auto` (the default) the bots were sandboxed as with `bwrap` and shared the
    # folder all the same, without a word (found by a red-team audit)
    need_bwrap()
    random_bot = (ROOT / "sample_bots" / "python" / "random_bot.py").read_text()
    (tmp_path / "bots").mkdir()
    for name in ("alice", "bob"):
        (tmp_path / "bots" / f"{name}.py").write_text(random_bot)
    file = tmp_path / "t.yaml"
    file.write_text(f"name: t\ngame: machiavelli\nplayers_per_game: 2\n{sandbox}"
                    "games_per_pairing: 1\nbots:\n"
                    "  - {name: alice, cmd: 'python bots/alice.py'}\n"
                    "  - {name: bob, cmd: 'python bots/bob.py'}\n")
    result = CliRunner().invoke(main, ["run", str(file), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    said = "warning: bots 'alice', 'bob' are given the same folder " in result.output
    assert said is warned, result.output


def test_arenas_own_sample_bots_are_not_named() -> None:
    # `make demo` runs the Python samples from their one folder: no warning for public files
    samples = ROOT / "sample_bots" / "python"
    bots = [BotSpec("r", (sys.executable, str(samples / "random_bot.py"))),
            BotSpec("g", (sys.executable, str(samples / "greedy_bot.py")))]
    assert shared_folders(bots) == []
