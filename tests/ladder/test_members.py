"""Versions by content hash, adding a version, retiring, and ladder.yaml's errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.errors import ConfigError, StoreError
from arena.ladder import members, read
from arena.ladder.config import parse_ladder
from arena.ladder.members import Added
from arena.ladder.versions import content_version
from tests.ladder.conftest import MakeLadder


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "alice"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "bot.py").write_text("print('v1')\n")
    return folder


def test_the_version_hash_follows_the_bots_files_and_command(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    first = content_version(["python", "bot.py"], folder)
    assert content_version(["python", "bot.py"], folder) == first
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"cache")
    assert content_version(["python", "bot.py"], folder) == first, "caches make no version"
    assert content_version(["python3", "bot.py"], folder) != first
    (folder / "bot.py").write_text("print('v2')\n")
    assert content_version(["python", "bot.py"], folder) != first
    (folder / "bot.py").write_text("print('v1')\n")
    assert content_version(["python", "bot.py"], folder) == first


def test_without_a_folder_the_hash_covers_the_files_the_command_names(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("1\n")
    first = content_version(["python", str(script)], None)
    script.write_text("2\n")
    assert content_version(["python", str(script)], None) != first


def test_a_new_version_replaces_the_active_one_and_unchanged_is_a_no_op(
        tmp_path: Path, make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=0)
    folder = bot_folder(tmp_path)
    first = members.add(directory, "alice", "python bot.py", cwd=folder)
    assert first.outcome is Added.ADDED and first.replaced is None
    again = members.add(directory, "alice", "python bot.py", cwd=folder)
    assert again.outcome is Added.UNCHANGED
    assert len(read.versions(directory)) == 1
    (folder / "bot.py").write_text("print('v2')\n")
    second = members.add(directory, "alice", "python bot.py", cwd=folder)
    assert second.outcome is Added.ADDED and second.replaced == first.version.entry
    statuses = {v.entry: (v.status, v.previous) for v in read.versions(directory)}
    assert statuses == {first.version.entry: ("superseded", None),
                        second.version.entry: ("active", first.version.entry)}
    (folder / "bot.py").write_text("print('v1')\n")
    back = members.add(directory, "alice", "python bot.py", cwd=folder)
    assert back.outcome is Added.RESTORED and back.version.entry == first.version.entry
    assert [v.entry for v in read.versions(directory) if v.status == "active"] == [
        first.version.entry]


def test_retire_stops_a_bot_and_names_the_active_ones(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    assert members.retire(directory, "bot0").entry == "bot0@v1"
    assert [v.status for v in read.versions(directory)] == ["retired", "active"]
    with pytest.raises(ConfigError, match=r"'bot0' is already retired \(bot0@v1\)"):
        members.retire(directory, "bot0")
    with pytest.raises(ConfigError, match=r"'bot9' is not an active bot .*active: bot1"):
        members.retire(directory, "bot9")


@pytest.mark.parametrize(("name", "version"), [("two words", None), ("ok", "a/b"),
                                                ("", None)])
def test_bad_names_are_refused(make_ladder: MakeLadder, name: str, version: str | None) -> None:
    with pytest.raises(ConfigError, match="must be ASCII letters, digits"):
        members.add(make_ladder(bots=0), name, "builtin:random", version=version)


def test_init_refuses_an_existing_ladder_and_writes_nothing_when_invalid(
        tmp_path: Path, make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=0)
    with pytest.raises(StoreError, match="already holds a ladder"):
        members.init(directory, game="machiavelli")
    with pytest.raises(ConfigError, match="unknown game|not a game|chess"):
        members.init(tmp_path / "new", game="chess")
    assert not (tmp_path / "new").exists()


def test_ladder_yaml_reports_every_problem_with_its_line() -> None:
    text = ("game: machiavelli\nbots: []\nexplore: 2\nwindow: 3\nbatch: 0\n"
            "time: {move_ms: 0}\n")
    with pytest.raises(ConfigError) as caught:
        parse_ladder(text, "ladder.yaml")
    problems = "\n".join(caught.value.problems)
    for line, what in ((2, "unknown key 'bots'"), (3, "'explore'"), (4, "'window'"),
                       (5, "'batch'"), (6, "'move_ms'")):
        assert f"ladder.yaml:{line}: " in problems and what in problems, (line, problems)
    assert "tournament file" not in str(caught.value)


@pytest.mark.parametrize("text", ["", "- a list\n", "just words\n"])
def test_a_ladder_yaml_that_is_no_mapping_is_said_of_a_ladder_file(text: str) -> None:
    # it was "a tournament file is a mapping of keys (name, game, bots, ...)": no bots here
    with pytest.raises(ConfigError) as caught:
        parse_ladder(text, "ladder.yaml")
    assert caught.value.problems == [
        "ladder.yaml:1: a ladder file is a mapping of keys (game, name, rules, ...)"]


def test_ladder_yaml_takes_bot_files_as_a_tournament_file_does() -> None:
    """The bundle error's advice (`bot_files: shared`) must work in a ladder too."""
    assert parse_ladder("game: machiavelli\nbot_files: shared\n").base.bot_files == "shared"
    assert parse_ladder("game: machiavelli\n").base.bot_files == "bundle"
    with pytest.raises(ConfigError) as caught:
        parse_ladder("game: machiavelli\nbot_files: copied\n", "ladder.yaml")
    assert caught.value.problems == [
        "ladder.yaml:2: bot_files 'copied' is not one of bundle, shared"]


def test_a_moved_folder_is_taken_from_the_next_add(tmp_path: Path,
                                                   make_ladder: MakeLadder) -> None:
    # "already the active version: nothing changed" kept the old path, and the bot never
    # played again: its cwd was no directory (found by a scheduler's audit)
    directory = make_ladder(bots=0)
    folder = bot_folder(tmp_path)
    first = members.add(directory, "alice", "python bot.py", cwd=folder)
    moved = folder.rename(tmp_path / "bots-alice")
    again = members.add(directory, "alice", "python bot.py", cwd=moved)
    assert again.outcome is Added.MOVED and again.version.entry == first.version.entry
    [version] = read.versions(directory)
    assert version.cwd == str(moved.resolve()) and version.status == "active"
    assert members.add(directory, "alice", "python bot.py", cwd=moved).outcome is \
        Added.UNCHANGED

