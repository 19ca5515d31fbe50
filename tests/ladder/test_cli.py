"""`arena ladder` through click: the commands, their formats and their one-line errors."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.ladder import BUSY, _Lines
from arena.ladder import members
from arena.ladder.run import ladder_lock
from arena.tournament.runner import Progress
from tests.conditions import wait_until
from tests.ladder.conftest import MakeLadder, play
from tests.ladder.test_processes import stored


def test_init_add_list_and_retire(runner: CliRunner, tmp_path: Path) -> None:
    directory = tmp_path / "club"
    result = runner.invoke(main, ["ladder", "init", str(directory), "--game", "machiavelli",
                                  "--players", "4", "-r", "max_rounds=40"])
    assert result.exit_code == 0, result.output
    assert "players_per_game: 4" in (directory / "ladder.yaml").read_text()
    for name in ("ann", "bob"):
        result = runner.invoke(main, ["ladder", "add", str(directory), name, "--cmd",
                                      "builtin:random"])
        assert result.exit_code == 0 and " added" in result.output, result.output
    again = runner.invoke(main, ["ladder", "add", str(directory), "ann", "--cmd",
                                 "builtin:random"])
    assert "nothing changed" in again.output
    newer = runner.invoke(main, ["ladder", "add", str(directory), "ann", "--cmd",
                                 "builtin:default"])
    assert "replaces ann@" in newer.output
    assert runner.invoke(main, ["ladder", "retire", str(directory), "bob"]).exit_code == 0
    listed = runner.invoke(main, ["ladder", "list", str(directory), "--all"]).output
    assert "superseded" in listed and "retired" in listed and "builtin:default" in listed
    # for scripts: whole entries however wide (the table split a hash over two lines)
    data = json.loads(runner.invoke(main, ["ladder", "list", str(directory), "--all",
                                           "--format", "json"]).output)["versions"]
    assert sorted(v["status"] for v in data) == ["active", "retired", "superseded"]
    assert all(v["entry"] == f"{v['bot']}@{v['version']}" for v in data)
    rows = list(csv.DictReader(io.StringIO(runner.invoke(
        main, ["ladder", "list", str(directory), "--format", "csv"]).output)))
    assert [r["bot"] for r in rows] == ["ann"] and rows[0]["cmd"] == "builtin:default"


def test_a_bot_that_cannot_start_is_said_at_add(runner: CliRunner, tmp_path: Path) -> None:
    # it was said first by the night's run, as a warning, and add exited 0 in silence
    directory = tmp_path / "club"
    runner.invoke(main, ["ladder", "init", str(directory), "--game", "machiavelli"])
    result = runner.invoke(main, ["ladder", "add", str(directory), "gone", "--cmd",
                                  "/nonexistent/bot --x"])
    assert result.exit_code == 0, result.output  # registered all the same: it may come
    assert "warning: gone@" in result.output
    assert "command '/nonexistent/bot' not found" in result.output
    fine = runner.invoke(main, ["ladder", "add", str(directory), "ok", "--cmd",
                                "builtin:random"])
    assert "warning" not in fine.output


def test_standings_and_history_in_every_format(runner: CliRunner,
                                               make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=3)
    play(directory, 6)
    table = runner.invoke(main, ["ladder", "standings", str(directory)])
    assert table.exit_code == 0 and "bot2@v1" in table.output, table.output
    data = json.loads(runner.invoke(main, ["ladder", "standings", str(directory),
                                           "--format", "json"]).output)
    assert data["games"] == 6 and len(data["standings"]) == 3
    assert set(data["standings"][0]) >= {"rank", "bot", "version", "rating", "interval",
                                         "games", "win_rate", "mean_placing", "faults",
                                         "last_played", "trend"}
    rows = list(csv.DictReader(io.StringIO(runner.invoke(
        main, ["ladder", "standings", str(directory), "--format", "csv"]).output)))
    assert [int(r["rank"]) for r in rows] == [1, 2, 3]
    md = runner.invoke(main, ["ladder", "standings", str(directory), "--format", "md"]).output
    assert md.startswith("| # | bot |")
    # arena report ranked a ladder by tournament points, another order than its ratings'
    report = runner.invoke(main, ["report", str(directory), "--format", "md"])
    assert report.exit_code == 0 and report.output == md, report.output
    history = json.loads(runner.invoke(main, ["ladder", "history", str(directory), "bot1",
                                              "--format", "json"]).output)["history"]
    assert [(p["run"], p["bot"], p["games"]) for p in history] == [
        (1, "bot1", data["standings"][[r["bot"] for r in data["standings"]].index("bot1")]
         ["games"])]
    unknown = runner.invoke(main, ["ladder", "history", str(directory), "nobody"])
    assert unknown.exit_code == 1 and "'nobody' is not a bot" in unknown.output
    # the ratings were left-aligned in Markdown, right-aligned in the table
    rule = runner.invoke(main, ["ladder", "history", str(directory), "--format", "md"]
                         ).output.splitlines()[1]
    assert rule == "|---:|:---|:---|:---|---:|---:|"


def test_a_directory_that_is_not_a_ladder_is_one_line(runner: CliRunner,
                                                      tmp_path: Path) -> None:
    """Exit status 1, as docs/ladder.md's table says, a missing directory included (not
    click's usage error, 2)."""
    (tmp_path / "file").write_text("")
    for directory in (tmp_path, tmp_path / "missing", tmp_path / "file"):
        for command in (["standings"], ["run"], ["list"], ["history"], ["retire", "a"],
                        ["add", "a", "--cmd", "builtin:random"]):
            result = runner.invoke(main, ["ladder", command[0], str(directory), *command[1:]])
            assert result.exit_code == 1, (command, result.output)
            assert "Traceback" not in result.output
            assert result.output.strip().splitlines() == [
                f"Error: {directory} is not a ladder: {directory / 'ladder.yaml'} is missing "
                "(create one with `arena ladder init`)"], result.output


def test_a_damaged_database_is_one_line(runner: CliRunner, make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    (directory / "results.sqlite").write_bytes(b"not a database at all" * 100)
    for name in ("results.sqlite-wal", "results.sqlite-shm"):
        (directory / name).unlink(missing_ok=True)
    result = runner.invoke(main, ["ladder", "standings", str(directory)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "results.sqlite" in result.output


def test_a_run_while_another_holds_the_ladder_exits_75(runner: CliRunner,
                                                       make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    with ladder_lock(directory, wait=False):
        result = runner.invoke(main, ["ladder", "run", str(directory), "--games", "1"])
    assert result.exit_code == BUSY
    assert "another `arena ladder run` is playing" in result.output
    assert "--wait" in result.output


def test_games_and_minutes_together_are_a_usage_error(runner: CliRunner,
                                                      make_ladder: MakeLadder) -> None:
    result = runner.invoke(main, ["ladder", "run", str(make_ladder(bots=2)), "--games", "1",
                                  "--minutes", "1"])
    assert result.exit_code == 2


def test_a_worker_started_from_the_console_script_imports_no_command_line() -> None:
    """Spawned workers re-run the parent's main script: the `arena` script imports only
    `arena.entry`, and a ladder worker's referee factory pulls in no rating code."""
    code = ("import sys, arena.entry, arena.ladder.worker; "
            "print(sorted(m for m in ('arena.cli', 'numpy', 'openskill', 'rich') "
            "if m in sys.modules))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert shown.stdout.strip() == "[]"
    script = Path(sys.executable).parent / "arena"
    version = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "arena, version" in version.stdout


def test_init_from_the_example_file_and_its_usage_errors(runner: CliRunner,
                                                         tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "tournaments" / "ladder.example.yaml"
    directory = tmp_path / "club"
    result = runner.invoke(main, ["ladder", "init", str(directory), "--config", str(example)])
    assert result.exit_code == 0, result.output
    assert (directory / "ladder.yaml").read_text() == example.read_text()
    both = runner.invoke(main, ["ladder", "init", str(tmp_path / "x"), "--config", str(example),
                                "--game", "machiavelli"])
    assert both.exit_code == 2 and not (tmp_path / "x").exists()
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: machiavelli\nbatch: many\n")
    wrong = runner.invoke(main, ["ladder", "init", str(tmp_path / "y"), "--config", str(bad)])
    assert wrong.exit_code == 1 and "bad.yaml:2: 'batch'" in wrong.output
    assert not (tmp_path / "y").exists()


def test_a_bot_that_never_connects_is_named_after_the_run(runner: CliRunner,
                                                          make_ladder: MakeLadder) -> None:
    # it took its share of each night's games, every one a forfeit, and the run said
    # nothing at its end (found by a scheduler's audit)
    directory = make_ladder(bots=2, extra="sandbox: none\n")
    members.add(directory, "broken", f"{sys.executable} -c 'import sys; sys.exit(3)'",
                version="v1")
    result = runner.invoke(main, ["ladder", "run", str(directory), "--games", "3", "-j", "1",
                                  "--no-report"])
    assert result.exit_code == 0, result.output
    [line] = [ln for ln in result.output.splitlines() if "never connected" in ln]
    assert line.startswith("warning: broken@v1 never connected in this run: its ")
    assert "exited with status 3" in line and "logs/broken@v1.log" in line
    assert "bot0@v1 never" not in result.output


def test_when_no_table_can_be_made_the_error_is_the_last_line(runner: CliRunner,
                                                              tmp_path: Path) -> None:
    # a cron log's `tail -1` showed a bot's reason, the error above it
    directory = tmp_path / "club"
    members.init(directory, config_text="game: machiavelli\nplayers_per_game: 2\n")
    members.add(directory, "a", "/nonexistent/a", version="v1")
    members.add(directory, "b", "builtin:random", version="v1")
    result = runner.invoke(main, ["ladder", "run", str(directory), "--games", "1"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("Error: 1 active bot can play in ")
    assert lines[-1].endswith("or fix those above")
    assert any("a@v1 is not scheduled in this run" in line for line in lines[:-1])


def test_an_interrupted_run_counts_the_games_stored_not_the_lines_printed(
        runner: CliRunner, make_ladder: MakeLadder, monkeypatch: pytest.MonkeyPatch) -> None:
    # "interrupted: 3 games of this run are stored" when 4 were: a worker commits the game
    # it was playing while the run stops, after the last progress line
    directory = make_ladder(bots=4, batch=4)
    update = _Lines.update

    def stop_once_another_is_stored(lines: _Lines, state: Progress) -> None:
        update(lines, state)
        if lines.done:  # the other worker's game is committed, never told to the run
            wait_until(lambda: stored(directory) > lines.done, "a second game stored")
            raise KeyboardInterrupt

    monkeypatch.setattr(_Lines, "update", stop_once_another_is_stored)
    result = runner.invoke(main, ["ladder", "run", str(directory), "--games", "4", "-j", "2",
                                  "--no-report"])
    assert result.exit_code == 130, result.output
    count = stored(directory)
    assert count >= 2
    assert result.output.strip().splitlines()[-1] == (
        f"interrupted: {count} games of this run are stored; the next run finishes the "
        "round it left")


def test_standings_all_says_which_versions_are_no_longer_scheduled(
        runner: CliRunner, make_ladder: MakeLadder, monkeypatch: pytest.MonkeyPatch) -> None:
    # --all listed a retired and a superseded version like the active ones: two rows
    # 'bot1@...' and nothing to tell which one plays (json, csv and the report said it)
    monkeypatch.setenv("COLUMNS", "120")  # under 80, the bot column wraps long names
    directory = make_ladder(bots=3)
    play(directory, 6)
    members.retire(directory, "bot0")
    members.add(directory, "bot1", "builtin:random", version="v2")
    for fmt in ("table", "md"):
        out = runner.invoke(main, ["ladder", "standings", str(directory), "--all",
                                   "--format", fmt]).output
        assert "bot0@v1 (retired)" in out and "bot1@v1 (superseded)" in out, out
        assert "bot2@v1 (" not in out and "bot2@v1" in out
    active = runner.invoke(main, ["ladder", "standings", str(directory)]).output
    assert "(retired)" not in active and "bot0@v1" not in active


def test_a_bot_left_out_is_said_before_the_first_game(runner: CliRunner,
                                                      make_ladder: MakeLadder) -> None:
    # the line came after the night's last game (a run stopped by an error never said it),
    # and named the bot twice: "gone@v1 is not scheduled in this run: bot 'gone@v1': ..."
    directory = make_ladder(bots=2)
    folder = directory.parent / "nowhere"
    folder.mkdir()
    members.add(directory, "gone", f"{sys.executable} -c pass", version="v1", cwd=folder)
    folder.rmdir()  # the member removed their folder and nobody retired the bot
    result = runner.invoke(main, ["ladder", "run", str(directory), "--games", "2", "-j", "1",
                                  "--no-report"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    [said] = [i for i, line in enumerate(lines) if "gone@v1 is not scheduled" in line]
    first = next(i for i, line in enumerate(lines) if line.startswith("[1/2]"))
    assert said < first, result.output
    assert lines[said].endswith(f"gone@v1 is not scheduled in this run: cwd "
                                f"{folder} is not a directory")


def test_retiring_a_retired_bot_says_so_and_adding_it_again_says_it_was_retired(
        runner: CliRunner, make_ladder: MakeLadder) -> None:
    # "'bot0' is not an active bot of this ladder", as if the name were wrong, and then
    # "bot0@v1 is active again (replacing nothing)"
    directory = make_ladder(bots=2)
    assert runner.invoke(main, ["ladder", "retire", str(directory), "bot0"]).exit_code == 0
    again = runner.invoke(main, ["ladder", "retire", str(directory), "bot0"])
    assert again.exit_code == 1
    assert again.output.strip() == ("Error: 'bot0' is already retired (bot0@v1): no version "
                                    "of it is scheduled; `arena ladder add` makes it active "
                                    "again")
    unknown = runner.invoke(main, ["ladder", "retire", str(directory), "nobody"])
    assert "'nobody' is not an active bot of this ladder (active: bot1)" in unknown.output
    back = runner.invoke(main, ["ladder", "add", str(directory), "bot0", "--cmd",
                                "builtin:random", "--version", "v1"])
    assert back.exit_code == 0 and back.output.strip() == "bot0@v1 is active again (it was " \
                                                          "retired)", back.output
