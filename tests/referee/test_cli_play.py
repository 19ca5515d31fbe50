"""`arena play` and `arena replay` end to end, with sample Python bots as real processes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.referee import Referee
from tests.security.zoo import need_bwrap

ROOT = Path(__file__).resolve().parents[2]
RANDOM = f"python {ROOT / 'sample_bots' / 'python' / 'random_bot.py'}"


def test_play_four_sample_bots_then_replay_and_check(runner: CliRunner, tmp_path: Path) -> None:
    replay = tmp_path / "game.jsonl"
    result = runner.invoke(main, [
        "play", "machiavelli", "--seed", "5", "--replay", str(replay), "--workdir",
        str(tmp_path), "-b", f"a={RANDOM}", "-b", f"b={RANDOM}", "-b", f"c={RANDOM}",
        "-b", "d=builtin:random"])
    assert result.exit_code == 0, result.output
    assert "completed" in result.output and "decisions" in result.output
    lines = [json.loads(line) for line in replay.read_text().splitlines()]
    header, outcome = lines[0], lines[-1]
    assert header["game"] == "machiavelli@1" and header["seed"] == 5
    assert [b["name"] for b in header["bots"]] == ["a", "b", "c", "d"]
    assert outcome["type"] == "outcome" and sorted(outcome["placings"])[0] == 1
    assert all(s["faults"] == 0 and s["version"] == ("" if s["bot"] == "d" else "1.0")
               for s in outcome["record"]["seats"])
    assert {p.name for p in (tmp_path / "logs").iterdir()} == {"a.log", "b.log", "c.log"}

    checked = runner.invoke(main, ["replay", str(replay), "--check"])
    assert checked.exit_code == 0 and "no mismatch" in checked.output

    seat1 = runner.invoke(main, ["replay", str(replay), "--seat", "1", "--json"])
    views = [json.loads(line) for line in seat1.output.splitlines()]
    assert len(views) == len(lines) - 2
    assert all(("observation" in v) == (v["seat"] == 1) for v in views)
    assert all(v["observation"]["seat"] == 1 for v in views if "observation" in v)

    # the steps' seats are named first (found by an organiser reading a replay)
    shown = runner.invoke(main, ["replay", str(replay)]).output
    assert " ".join(shown.split()).startswith(
        "machiavelli@1, seed 5: seat 0 a@1.0, seat 1 b@1.0, seat 2 c@1.0, seat 3 d")


def test_replay_check_reports_a_tampered_game(runner: CliRunner, tmp_path: Path) -> None:
    replay = tmp_path / "game.jsonl"
    result = runner.invoke(main, ["play", "machiavelli", "--replay", str(replay),
                                  "-b", "a=builtin:random", "-b", "b=builtin:random"])
    assert result.exit_code == 0, result.output
    lines = replay.read_text().splitlines()
    outcome = json.loads(lines[-1])
    outcome["scores"][0] += 1
    lines[-1] = json.dumps(outcome)
    replay.write_text("\n".join(lines) + "\n")
    checked = runner.invoke(main, ["replay", str(replay), "--check"])
    assert checked.exit_code == 1
    assert "outcome differs" in checked.output


def test_play_usage_errors(runner: CliRunner) -> None:
    bad = runner.invoke(main, ["play", "machiavelli", "-b", "nocommand"])
    assert bad.exit_code == 2 and "NAME=CMD" in bad.output
    # a usage error naming --bot: it read "invalid rules for machiavelli: 1 players", exit 1
    one = runner.invoke(main, ["play", "machiavelli", "-b", "a=builtin:random"])
    assert one.exit_code == 2, one.output
    assert "Invalid value for --bot: machiavelli is played by 2 to 8 players; 1 --bot given" \
        in one.output
    rules = runner.invoke(main, ["play", "machiavelli", "-r", "bogus=1", "-b", "a=builtin:random",
                                 "-b", "b=builtin:random"])
    assert rules.exit_code == 2 and "Invalid value for --rules: unknown option 'bogus'" in \
        rules.output
    twice = runner.invoke(main, ["play", "machiavelli", "-b", "a=builtin:random",
                                 "-b", "a=builtin:random"])
    assert twice.exit_code == 1 and "more than once" in twice.output
    unknown = runner.invoke(main, ["play", "machiavelli", "-b", "a=builtin:wizard",
                                   "-b", "b=builtin:random"])
    assert unknown.exit_code == 1 and "builtin:random" in unknown.output


def test_verbose_shows_public_events_only(runner: CliRunner) -> None:
    result = runner.invoke(main, ["play", "machiavelli", "-v", "-b", "a=builtin:random",
                                  "-b", "b=builtin:random", "-b", "c=builtin:random"])
    assert result.exit_code == 0, result.output
    assert "character_picked" in result.output
    assert "own_pick" not in result.output  # private to the picker


def test_ctrl_c_exits_130_in_play_as_in_run(runner: CliRunner,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Referee, "play", interrupted)
    result = runner.invoke(main, ["play", "machiavelli", "-b", "a=builtin:random",
                                  "-b", "b=builtin:random"])
    assert result.exit_code == 130
    assert result.output == "interrupted\n"


def test_a_seed_outside_0_to_2_63_is_a_usage_error(runner: CliRunner) -> None:
    for seed in ("-1", str(2**63)):
        result = runner.invoke(main, ["play", "machiavelli", "--seed", seed,
                                      "-b", "a=builtin:random", "-b", "b=builtin:random"])
        assert result.exit_code == 2 and "--seed" in result.output


def test_max_rounds_beyond_its_bound_is_one_clear_line(runner: CliRunner) -> None:
    result = runner.invoke(main, ["play", "machiavelli", "-r", "max_rounds=1000000000000",
                                  "-b", "a=builtin:random", "-b", "b=builtin:random"])
    assert result.exit_code == 2  # a bad argument: a usage error
    assert "'max_rounds': 1000000000000 is not an integer from 1 to 1000" in result.output
    assert "Traceback" not in result.output


def _damaged(runner: CliRunner, tmp_path: Path, damage: Callable[[bytes], bytes]) -> Path:
    replay = tmp_path / "game.jsonl"
    result = runner.invoke(main, ["play", "machiavelli", "--replay", str(replay),
                                  "-b", "a=builtin:random", "-b", "b=builtin:random"])
    assert result.exit_code == 0, result.output
    replay.write_bytes(damage(replay.read_bytes()))
    return replay


@pytest.mark.parametrize("option", [[], ["--check"], ["--seat", "1"]])
def test_a_replay_that_is_not_utf8_is_one_line_with_its_byte_offset(
        runner: CliRunner, tmp_path: Path, option: list[str]) -> None:
    def damage(data: bytes) -> bytes:
        second = data.index(b"\n") + 1
        return data[:second + 5] + b"\xfe" + data[second + 6:]

    replay = _damaged(runner, tmp_path, damage)
    offset = replay.read_bytes().index(b"\xfe")
    result = runner.invoke(main, ["replay", str(replay), *option])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output == (f"Error: {replay}:2: not UTF-8 text: byte 0xfe at byte "
                             f"offset {offset}\n")


@pytest.mark.parametrize("key", ["action", "seat", "events", "n"])
def test_a_replay_decision_missing_a_field_is_one_line(runner: CliRunner, tmp_path: Path,
                                                       key: str) -> None:
    def damage(data: bytes) -> bytes:
        lines = data.decode().splitlines()
        decision = json.loads(lines[1])
        del decision[key]
        lines[1] = json.dumps(decision)
        return ("\n".join(lines) + "\n").encode()

    replay = _damaged(runner, tmp_path, damage)
    result = runner.invoke(main, ["replay", str(replay)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output.startswith(f"Error: {replay}:2: the decision's {key!r} is missing")


@pytest.mark.parametrize(("replay", "label"), [(True, "game.jsonl"), (False, "play-seed-5")])
def test_a_played_game_is_named_in_the_bots_log(runner: CliRunner, tmp_path: Path,
                                                replay: bool, label: str) -> None:
    """Found by a bot author: without --replay the bot's log said "game ? starts"."""
    extra = ["--replay", str(tmp_path / "game.jsonl")] if replay else []
    result = runner.invoke(main, ["play", "machiavelli", "--seed", "5", "--workdir",
                                  str(tmp_path / "work"), "--bot", f"a={RANDOM}",
                                  "--bot", "b=builtin:random", *extra])
    assert result.exit_code == 0, result.output
    log = (tmp_path / "work" / "logs" / "a.log").read_text()
    assert f"game {label.removesuffix('.jsonl')} starts (seats: a, b)" in log


WEIGHTS_BOT = """\
import sys
sys.path.insert(0, {root!r})
with open("weights.json") as f:  # relative: found only in the bot's own directory
    f.read()
from arena.client import run
run(lambda request, rng: rng.choice(request.options) if request.options else None,
    name="weights", version="1.0")
"""


def test_cwd_runs_a_bot_in_its_own_directory(runner: CliRunner, tmp_path: Path) -> None:
    # a bot that opens its files by relative paths could not be played by `arena play` or
    # `arena compare` (a tournament file has `cwd`)
    home = tmp_path / "home"
    home.mkdir()
    (home / "weights.json").write_text("{}")
    (home / "bot.py").write_text(WEIGHTS_BOT.format(root=str(ROOT)))
    args = ["play", "machiavelli", "--sandbox", "none", "--workdir", str(tmp_path), "-b",
            f"w=python {home / 'bot.py'}", "-b", "r=builtin:random"]
    without = runner.invoke(main, args)
    assert without.exit_code == 3 and "w (seat 0) forfeited" in without.output
    within = runner.invoke(main, [*args, "--cwd", f"w={home}"])
    assert within.exit_code == 0, within.output
    for bad, message in [(f"x={home}", "no bot is named 'x' (the bots: w, r)"),
                         (f"r={home}", "r is a built-in bot"),
                         (f"w={home / 'nowhere'}", "is not a directory"),
                         ("w", "is not NAME=DIR")]:
        refused = runner.invoke(main, [*args, "--cwd", bad])
        assert refused.exit_code == 2 and message in " ".join(refused.output.split()), bad


def test_a_missing_script_is_named_before_the_game(runner: CliRunner, tmp_path: Path) -> None:
    # it played the game, the bot forfeiting with "no_connect" and a note on its private /tmp
    result = runner.invoke(main, ["play", "machiavelli", "-b", f"a=python {tmp_path}/bot.py",
                                  "-b", "b=builtin:random"])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: bot 'a': file '{tmp_path}/bot.py' not found in " \
        f"{Path.cwd().resolve()}"


def test_a_sandboxed_bot_plays_when_the_replay_is_written_into_its_own_folder(
        runner: CliRunner, tmp_path: Path) -> None:
    # `arena play ... --replay game.jsonl` run in the bot's folder hid that folder from
    # every sandbox, the replay being a run file, and the bot was refused ("its command
    # gives it ..., which it may not see"): the replay is now written out of sight and
    # moved there when the game is over
    need_bwrap()
    home = tmp_path / "home"
    home.mkdir()
    (home / "weights.json").write_text("{}")
    (home / "bot.py").write_text(WEIGHTS_BOT.format(root=str(ROOT)))
    replay = home / "game.jsonl"
    result = runner.invoke(main, ["play", "machiavelli", "--sandbox", "bwrap", "--replay",
                                  str(replay), "-b", f"w=python {home / 'bot.py'}",
                                  "-b", "r=builtin:random", "--cwd", f"w={home}"])
    assert result.exit_code == 0, result.output
    assert json.loads(replay.read_text().splitlines()[-1])["type"] == "outcome"
    assert {p.name for p in home.iterdir()} == {"bot.py", "weights.json", "game.jsonl"}
    checked = runner.invoke(main, ["replay", str(replay), "--check"])
    assert checked.exit_code == 0 and "no mismatch" in checked.output


CRASHES_MIDGAME = """\
import sys
sys.path.insert(0, {root!r})
from arena.client import run
calls = []
def act(request, rng):
    calls.append(request)
    if len(calls) == 3:
        raise KeyError("a bug in my strategy")
    return rng.choice(request.options)
run(act, name="crashes")
"""


@pytest.mark.parametrize("kept", [False, True])
def test_a_bot_that_crashes_in_the_game_is_shown_the_end_of_its_output(
        runner: CliRunner, tmp_path: Path, kept: bool) -> None:
    # it said "crashed: exited with status 1", and the log with the traceback went with
    # the temporary folder: the author never saw why (found by a bot author's audit)
    bot = tmp_path / "crashes.py"
    bot.write_text(CRASHES_MIDGAME.format(root=str(ROOT)))
    work = tmp_path / "work"
    keep = ["--workdir", str(work)] if kept else []
    result = runner.invoke(main, ["play", "machiavelli", "--sandbox", "none", *keep,
                                  "-b", f"a=python {bot}", "-b", "b=builtin:random"])
    assert result.exit_code == 3, result.output
    assert "a (seat 0) forfeited: crashed: exited with status 1" in result.output
    where = f"its log: {work / 'logs' / 'a.log'}" if kept else "--workdir DIR keeps its log"
    assert f"the end of its output ({where}):" in result.output
    assert "| KeyError: 'a bug in my strategy'" in result.output


@pytest.mark.parametrize(("option", "said"), [
    ("--replay", "cannot write the replay {file}/x.jsonl: {file} is a file, not a folder"),
    ("--workdir", "cannot keep the bots' logs in {file}/x (--workdir): {file} is a file, not "
                  "a folder"),
])
def test_an_unusable_replay_or_workdir_is_one_line(runner: CliRunner, tmp_path: Path,
                                                     option: str, said: str) -> None:
    # --replay: a traceback (FileExistsError from mkdir); --workdir: the game was played,
    # the bot forfeiting for its own command "not found"
    file = tmp_path / "file"
    file.write_text("")
    target = f"{file}/x.jsonl" if option == "--replay" else f"{file}/x"
    result = runner.invoke(main, ["play", "machiavelli", "--sandbox", "none", option, target,
                                  "-b", f"a={RANDOM}", "-b", "b=builtin:random"])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == f"Error: {said.format(file=file)}"


@pytest.mark.parametrize(("line", "said"), [
    ('{"x": 1}', 'no "type" string'),  # it said "('type')", a KeyError's words
    ('{"type": 3}', 'no "type" string'),
    ("[1, 2]", "a JSON array, not an object"),  # a TypeError's words about list indices
    ('"header"', "a JSON string, not an object"),
])
def test_a_line_that_is_no_replay_line_says_what_it_lacks(runner: CliRunner, tmp_path: Path,
                                                          line: str, said: str) -> None:
    replay = tmp_path / "game.jsonl"
    replay.write_text(line + "\n")
    for command in (["replay", str(replay)], ["replay", str(replay), "--check"]):
        result = runner.invoke(main, command)
        assert result.exit_code == 1, result.output
        assert result.output == f"Error: {replay}:1: not a replay line ({said})\n"


@pytest.mark.parametrize("name", ["../../escaped", "a/b", "x y", "-dash", "é"])
def test_a_bot_name_that_cannot_name_its_log_is_a_usage_error(runner: CliRunner,
                                                              tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              name: str) -> None:
    # the name names the bot's log: "a/b" made a folder of logs/, "../../escaped" wrote
    # escaped.log two folders above the --workdir's logs (found by a bot author's audit)
    work = tmp_path / "one" / "two"
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["play", "machiavelli", "--sandbox", "none", "--workdir",
                                  str(work), "-b", f"{name}={RANDOM}", "-b", "b=builtin:random"])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for --bot: bot name {name!r} must be ASCII letters" in result.output
    assert not list(tmp_path.rglob("*.log"))
    compared = runner.invoke(main, ["compare", "machiavelli", "--candidate", f"{name}={RANDOM}",
                                    "--base", "b=builtin:random"])
    assert compared.exit_code == 3, compared.output
    assert f"Invalid value for --candidate: bot name {name!r}" in compared.output
