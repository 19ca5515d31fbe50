"""A tournament file's problems in one pass, each one line at the line it is about: the
commands of bots refused for another problem too, a missing key at the mapping that lacks
it; the bots' commands looked up once by a run (found by an organiser's audit)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.play import parse_bot
from arena.core.errors import ConfigError
from arena.referee.spec import BOT_NAME_RULE, BotSpec
from arena.tournament import config as config_module
from arena.tournament.config import load_config, parse_config
from arena.tournament.runner import Interrupted, Runner
from tests.tournament.fakes import FakeReferee, toy_registry

REFUSED = """\
name: x
game: toy
rules: {tagret: 3}
bots:
  - {name: a, cmd: "builtin:random"}
  - {name: b, cmd: "builtin:random"}
  - {name: late, cmd: "no-such-program-xyz", restart: sometimes}
  - name: envy
    cmd: "{python} gone.py"
    env: [1, 2]
  - {name: a, cmd: "{python} twin.py"}
  - {name: "bad name", cmd: "./nobody.sh"}
  - {name: lost, cmd: "no-such-program-xyz", cwd: 3}
"""


def problems_of(text: str, base: Path) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "t.yaml", base, toy_registry(), commands=True)
    return info.value.problems


def test_a_bot_refused_for_an_option_has_its_command_checked_in_the_same_pass(
        tmp_path: Path) -> None:
    """A bad `restart`, `env`, name or a name used twice refused the bot, and its missing
    program was said only after that fix: two rounds of fix and rerun. A bot whose `cwd`
    is no path has no directory to look its command up in."""
    found = problems_of(REFUSED, tmp_path)
    assert found == [
        "t.yaml:3: rules: unknown option 'tagret' (did you mean 'target'?); valid: target",
        "t.yaml:7: bot 'late': 'restart' 'sometimes' is not valid; valid: never, per-game",
        "t.yaml:7: bot 'late': command 'no-such-program-xyz' not found",
        f"t.yaml:8: bot 'envy': file 'gone.py' not found in {tmp_path}",
        "t.yaml:10: bot 'envy': 'env' must map names to strings",
        f"t.yaml:11: bot 'a': file 'twin.py' not found in {tmp_path}",
        "t.yaml:11: bot name 'a' is already used on line 5",
        "t.yaml:12: bot 'bad name': command './nobody.sh' not found",
        "t.yaml:12: bot name 'bad name' must be ASCII letters, digits, '_', '.', '+' or '-', "
        "beginning with a letter or digit, at most 100 characters (it names files and "
        "command-line arguments)",
        "t.yaml:13: bot 'lost': 'cwd' must be a directory path",
    ]


def test_a_run_says_every_problem_of_the_file_one_line_each(runner: CliRunner,
                                                            tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(REFUSED.replace("game: toy", "game: machiavelli")
                    .replace("tagret: 3", "edition: klassic"))
    for dry in (["--dry-run"], []):
        result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "o"), *dry])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
        head, *lines = result.output.splitlines()
        assert head == f"Error: 10 problems in tournament file {file}:", result.output
        assert all(line.startswith(f"{file}:") for line in lines), result.output
        assert f"{file}:7: bot 'late': command 'no-such-program-xyz' not found" in lines
    assert not (tmp_path / "o").exists()


def test_a_refused_bot_still_counts_toward_filling_a_table(tmp_path: Path) -> None:
    """Two bots, one with a bad `restart`: the file was also told that 1 bot cannot fill a
    table, which fixing the `restart` makes untrue."""
    text = ('name: x\ngame: toy\nbots:\n  - {name: a, cmd: "builtin:random"}\n'
            '  - {name: b, cmd: "builtin:random", restart: sometimes}\n')
    assert problems_of(text, tmp_path) == [
        "t.yaml:5: bot 'b': 'restart' 'sometimes' is not valid; valid: never, per-game"]
    one = 'name: x\ngame: toy\nbots:\n  - {name: a, cmd: "builtin:rndom"}\n'
    assert problems_of(one, tmp_path) == [
        "t.yaml:3: 1 bot cannot fill a table: a table needs at least 2 ('players_per_game' is "
        "not given: the game's default is 2)",
        "t.yaml:4: bot 'a': unknown built-in bot 'builtin:rndom'; valid: builtin:random, "
        "builtin:default"]


@pytest.mark.parametrize(("cwd", "cmd"), [
    ("x" * 300, "{python} bot.py"),  # ENAMETOOLONG from stat(): it raised out of the check
    (".", "{python} " + "y" * 300 + "/bot.py"),
])
def test_a_path_too_long_is_a_problem_line_not_a_traceback(tmp_path: Path, cwd: str,
                                                          cmd: str) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(f"name: x\ngame: machiavelli\nbots:\n  - {{name: a, cmd: '{cmd}', "
                    f"cwd: '{cwd}'}}\n  - {{name: b, cmd: 'builtin:random'}}\n")
    result = CliRunner().invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output.splitlines()[-1] == (
        f"{file}:4: bot 'a': its command or cwd cannot be looked up: File name too long")


def test_a_nul_byte_in_a_path_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    text = ('name: x\ngame: toy\nbots:\n  - {name: a, cmd: "builtin:random", cwd: "a\\0b"}\n'
            '  - {name: b, cmd: "builtin:random"}\n  - {name: c, cmd: "builtin:random"}\n')
    # it raised ValueError (embedded null byte) out of resolving the directory
    assert problems_of(text, tmp_path) == ["t.yaml:4: bot 'a': 'cwd' must be a directory path"]


def parse_problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(textwrap.dedent(text), "t.yaml", Path("/tmp"), toy_registry())
    return info.value.problems


def test_a_missing_key_is_said_of_the_file_at_line_1_not_at_its_first_key() -> None:
    """A missing 'name' was reported at line 3, the file's first key (`game`)."""
    found = parse_problems("""\
        # the club's tournament

        game: toy
        format: gauntlet
        bots:
          - {name: a, cmd: "builtin:random"}
          - {name: b, cmd: "builtin:random"}
          - name: c
        """)
    assert found == [
        "t.yaml:1: the tournament file is missing required key 'name'",
        "t.yaml:4: a gauntlet needs 'challengers': a list of bot names",  # at its format
        "t.yaml:8: bot 'c': no 'cmd': it needs a command string or a non-empty list of "
        "strings",  # the entry that lacks it
    ]
    assert parse_problems("# club\n\ngame: toy\nname: x\n") == [
        "t.yaml:1: the tournament file is missing required key 'bots': a round-robin at "
        "tables of 2 needs at least 2 bots"]


def test_a_table_a_default_size_cannot_fill_is_said_at_the_bots() -> None:
    found = parse_problems("""\
        name: x
        game: toy
        seed: 3
        bots:
          - {name: a, cmd: "builtin:random"}
        """)
    # it quoted "'players_per_game' 2", which the file does not say
    assert found == ["t.yaml:4: 1 bot cannot fill a table: a table needs at least 2 "
                     "('players_per_game' is not given: the game's default is 2)"]


def test_a_ladder_file_without_its_game_is_said_of_the_file() -> None:
    from arena.ladder.config import parse_ladder

    with pytest.raises(ConfigError) as info:
        parse_ladder("# my ladder\nname: club\nexplore: 0.2\n", "ladder.yaml", Path("/tmp"))
    assert info.value.problems == ["ladder.yaml:1: the ladder file is missing required key "
                                   "'game'"]


def test_a_run_looks_each_bots_command_up_once(runner: CliRunner, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena run` checked every command, then its Runner checked them all again."""
    looked_up: list[str] = []

    def counted(bot: BotSpec) -> list[str]:
        looked_up.append(bot.name)
        return []

    def interrupted(self: Runner) -> None:  # stops the run after its checks, before a game
        raise Interrupted("interrupted before this run's first game: 0 games")

    monkeypatch.setattr(config_module, "bot_problems", counted)
    monkeypatch.setattr(Runner, "_run", interrupted)
    file = tmp_path / "t.yaml"
    file.write_text("name: x\ngame: machiavelli\nbots:\n  - {name: a, cmd: 'builtin:random'}\n"
                    "  - {name: b, cmd: 'builtin:random'}\n")
    for dry, status in ((["--dry-run"], 0), ([], 130)):
        looked_up.clear()
        result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "o"), *dry])
        assert result.exit_code == status, result.output
        assert sorted(looked_up) == ["a", "b"], dry


def test_a_runner_used_as_a_library_still_checks_the_commands(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text("name: x\ngame: machiavelli\nbots:\n  - {name: a, cmd: 'builtin:random'}\n"
                    "  - {name: b, cmd: 'no-such-program-xyz'}\n")
    with pytest.raises(ConfigError, match="command 'no-such-program-xyz' not found"):
        Runner(load_config(file), tmp_path / "o", referee=FakeReferee).run()
    assert not (tmp_path / "o").exists()


def test_a_bot_name_has_one_rule_in_a_file_in_a_ladder_and_on_the_command_line(
        tmp_path: Path) -> None:
    """Three copies of the rule had drifted: a file took a name of any length (which names
    a log file: past 255 bytes no system can make it) where a ladder and the command line
    stopped at 100."""
    long = "b" * 101
    text = f'name: x\ngame: toy\nbots:\n  - {{name: a, cmd: "builtin:random"}}\n' \
           f'  - {{name: {long}, cmd: "builtin:random"}}\n'
    assert problems_of(text, tmp_path) == [
        f"t.yaml:5: bot name {long!r} must be {BOT_NAME_RULE} (it names files and "
        "command-line arguments)"]
    with pytest.raises(click.BadParameter, match="at most 100 characters"):
        parse_bot(f"{long}=builtin:random")
    assert parse_bot(f"{long[:100]}=builtin:random").name == long[:100]
