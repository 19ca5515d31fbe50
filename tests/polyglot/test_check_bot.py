"""`arena check-bot`: passes a good bot, fails each broken bot on the right check and hint."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.checkbot import (
    BUSY_HINT,
    DIED_HINT,
    HINTS,
    ID_TYPE_HINT,
    STDIO_CONNECT_HINT,
    WARNINGS,
    CheckId,
    CheckOptions,
    CheckReport,
    check_bot,
)
from arena.cli import main
from arena.core.errors import ConfigError
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.spec import TimeControl

ROOT = Path(__file__).resolve().parents[2]
BROKEN = str(Path(__file__).parent / "bots" / "broken.py")
FAST = TimeControl(move_ms=300, bank_ms=0, startup_ms=60_000)
"""For the bots that answer late on purpose (they sleep three times the deadline): a short
limit keeps those tests short; load can only make more answers late, the same failure."""
SAFE = TimeControl(move_ms=20_000, bank_ms=0, startup_ms=60_000)
"""For every other bot: a limit that no honest answer misses on a machine however busy, so
that the one failing check is the bot's fault, never the load's."""
LATE_MODES = ("late", "late-second")
GRACE = 20_000
"""How long a bot may take to exit after shutdown, in the checks of bots that do (the one
that ignores shutdown is given 1 s: it never exits)."""


def _report(mode: str, games: int = 2, sandbox: SandboxMode = SandboxMode.AUTO) -> CheckReport:
    return check_bot(CheckOptions("machiavelli", (sys.executable, BROKEN, mode), games=games,
                                  time=FAST if mode in LATE_MODES else SAFE,
                                  grace_ms=1000 if mode == "ignores-shutdown" else GRACE,
                                  sandbox=SandboxPolicy(sandbox)))


def _check(mode: str, games: int = 2) -> dict[CheckId, bool | None]:
    return {r.check: r.ok for r in _report(mode, games).results}


def test_a_good_bot_passes_every_check() -> None:
    assert set(_check("good").values()) == {True}


@pytest.mark.parametrize(("mode", "failing"), [
    ("wrong-id", CheckId.ECHOES_IDS),
    ("dies-on-error", CheckId.SURVIVES_ERROR),
    ("ignores-shutdown", CheckId.SHUTDOWN),
    ("one-game", CheckId.MANY_GAMES),
    ("bad-token", CheckId.CONNECTS),
    ("late", CheckId.IN_TIME),
    ("late-second", CheckId.IN_TIME),
    ("aborts", CheckId.MANY_GAMES),
    ("illegal", CheckId.VALID_ACTIONS),
])
def test_a_broken_bot_fails_one_check_the_right_one(mode: str, failing: CheckId) -> None:
    results = _check(mode)
    assert [c for c, ok in results.items() if ok is False] == [failing], results
    before = list(CheckId)[: list(CheckId).index(failing)]
    assert all(results[c] in (True, None) for c in before), results


def test_a_late_answer_is_a_timeout_not_a_wrong_id() -> None:
    results = {r.check: r for r in _report("late").results}
    assert results[CheckId.ECHOES_IDS].ok is True
    assert results[CheckId.IN_TIME].ok is False
    assert "came after the deadline and were dropped" in results[CheckId.IN_TIME].detail
    assert results[CheckId.IN_TIME].hint == HINTS[CheckId.IN_TIME]


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.AUTO])
def test_a_crash_is_one_failure_naming_the_signal(sandbox: SandboxMode) -> None:
    results = {r.check: r for r in _report("aborts", sandbox=sandbox).results}
    crash = results[CheckId.MANY_GAMES]
    assert crash.ok is False and crash.detail == "game 1: crashed (killed by SIGABRT)"
    assert crash.hint == DIED_HINT
    assert results[CheckId.SHUTDOWN].ok is None
    assert "killed by SIGABRT" in results[CheckId.SHUTDOWN].detail


def test_a_forfeit_on_faults_is_not_reported_as_a_dead_process() -> None:
    results = {r.check: r for r in _report("illegal").results}
    assert results[CheckId.VALID_ACTIONS].ok is False
    assert "no_such_action" in results[CheckId.VALID_ACTIONS].detail
    games = results[CheckId.MANY_GAMES]
    assert games.ok is True and "ended" not in games.detail
    assert games.detail == "2 games in one process (2 forfeited on faults)"
    assert results[CheckId.SHUTDOWN].ok is True


@pytest.mark.parametrize(("game", "players"), [("machiavelli", "1"), ("machiavelli", "9"),
                                              ("machiavelli-rummy", "7")])
def test_a_player_count_the_game_does_not_take_is_a_usage_error(
        runner: CliRunner, game: str, players: str) -> None:
    # it read "invalid rules for machiavelli", status 1, which a script takes for a bot
    # that failed its checks (found by a bot author's audit)
    result = runner.invoke(main, ["check-bot", game, "-p", players, "--", "python", "x.py"])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for --players: {game} is played by" in result.output


@pytest.mark.parametrize(("args", "said"), [
    (["-r", "bogus=1"], "Invalid value for --rules: unknown option 'bogus'; valid: "),
    (["-p", "8", "-r", "edition=classic"], "Invalid value for --rules: 8 players: classic"),
    (["-r", "edition=classic"], None),  # the default 4 seats: no problem, the check runs
    # a seed play, compare and a tournament file refuse (it took any integer)
    (["--seed", "-5"], "Invalid value for '--seed': -5 is not in the range"),
    (["--seed", str(2**63)], "is not in the range 0<=x<=9223372036854775807"),
])
def test_a_bad_rule_option_is_a_usage_error(runner: CliRunner, tmp_path: Path,
                                             args: list[str], said: str | None) -> None:
    # it read "invalid rules for machiavelli", status 1, which a script takes for a bot
    # that failed its checks, as a bad --players did
    result = runner.invoke(main, ["check-bot", "machiavelli", *args, "--", "python",
                                  str(tmp_path / "nothere.py")])
    if said is None:  # past the rules, to the bot's missing script
        assert result.exit_code == 1 and "nothere.py' not found" in result.output
        return
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split())


def test_a_crash_in_a_game_is_logged_with_how_the_process_ended(
        caplog: pytest.LogCaptureFixture) -> None:
    # the forfeit line said "crashed (ended)", the referee's word for an unknown end
    with caplog.at_level("WARNING", logger="arena"):
        results = {r.check: r for r in _report("exits-midgame", sandbox=SandboxMode.NONE)
                   .results}
    assert results[CheckId.MANY_GAMES].detail == "game 1: crashed (exited with status 0)"
    forfeits = [r.getMessage() for r in caplog.records if "forfeits" in r.getMessage()]
    assert forfeits and all("crashed (exited with status 0)" in m for m in forfeits), forfeits


STUCK = """\
import sys, threading
sys.path.insert(0, {root!r})
from arena.client import run
calls = []
def act(request, rng):
    calls.append(request)
    if len(calls) == 3:
        threading.Event().wait()  # stuck in its move: it never reads another message
    return rng.choice(request.options)
run(act, name="stuck")
"""


def test_a_bot_stuck_in_a_move_is_not_told_to_read_shutdown(tmp_path: Path) -> None:
    # "exit with status 0 when a `shutdown` message arrives": a bot asleep in a move it
    # never answered cannot, and the hint sent its author after the wrong bug
    bot = tmp_path / "stuck.py"
    bot.write_text(STUCK.format(root=str(ROOT)))
    report = check_bot(CheckOptions("machiavelli", (sys.executable, str(bot)), games=1,
                                    time=FAST, grace_ms=1000,
                                    sandbox=SandboxPolicy(SandboxMode.NONE)))
    results = {r.check: r for r in report.results}
    assert results[CheckId.IN_TIME].ok is False
    assert results[CheckId.SHUTDOWN].ok is False
    assert results[CheckId.SHUTDOWN].hint == BUSY_HINT
    ignores = {r.check: r for r in _report("ignores-shutdown").results}[CheckId.SHUTDOWN]
    assert ignores.ok is False and ignores.hint == HINTS[CheckId.SHUTDOWN]  # it is not late


def test_cli_names_the_signal_and_gives_the_crash_hint(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check-bot", "machiavelli",
                                  "--grace-ms", "20000", "--games", "2", "--",
                                  "python", BROKEN, "aborts"])
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())
    assert "SIGABRT" in output  # the table may wrap "killed by SIGABRT" in its cell
    assert f"hint (plays several games in one process): {DIED_HINT}" in output
    assert output.count("hint (") == 1
    assert "the bot printed nothing" in output


@pytest.mark.parametrize("mode", ["unseeded", "seeded-once"])
def test_a_bot_not_seeded_per_game_gets_a_reproducibility_warning(mode: str) -> None:
    report = _report(mode)
    results = {r.check: r for r in report.results}
    assert results[CheckId.REPRODUCIBLE].ok is False
    assert "differs" in results[CheckId.REPRODUCIBLE].detail
    assert report.warnings == (results[CheckId.REPRODUCIBLE],)
    assert report.passed
    assert all(r.ok is True for r in report.results if r.check not in WARNINGS)


def test_a_bot_seeded_from_bot_seed_replays_identically() -> None:
    results = _check("seeded")
    assert set(results.values()) == {True}, results


def test_cli_shows_the_warning_and_exits_0(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check-bot", "machiavelli",
                                  "--grace-ms", "20000", "--games", "2", "--",
                                  "python", BROKEN, "unseeded"])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "WARN" in output and "FAIL" not in output
    assert "warning (replays a game identically): seed your random choices from " \
           "game_start.bot_seed; see PROTOCOL.md" in output
    assert "all checks passed, with 1 warning" in output


def test_help_explains_the_warning(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check-bot", "--help"])
    assert result.exit_code == 0
    assert "WARNING" in result.output and "game_start.bot_seed" in result.output


def test_a_bad_token_leaves_the_other_checks_not_run() -> None:
    report = _report("bad-token")
    assert [r.check for r in report.results if r.ok is not None] == [CheckId.CONNECTS]
    # answered as a run's referee answers it, and the bot's own words reach the report
    assert report.results[0].detail.startswith("its hello was refused: a hello with an "
                                               "unknown token")
    assert "refused: bad_token" in report.log_tail


def test_an_id_sent_as_a_string_fails_echoing_ids_with_its_own_hint() -> None:
    report = _report("string-id", games=1)
    results = {r.check: r for r in report.results}
    echoes = results[CheckId.ECHOES_IDS]
    assert echoes.ok is False and "at `$.id`" in echoes.detail and echoes.hint == ID_TYPE_HINT
    valid = results[CheckId.VALID_ACTIONS]  # the same faults, reported once
    assert valid.ok is True and valid.detail.startswith("no other fault in its ")


STDIO_BAD_HELLO = ("import json, os, sys; print(json.dumps({'type': 'hello', 'token': 'x', "
                   "'name': 'n', 'protocol': 1}), flush=True); sys.stdin.readline(); "
                   "print('told', file=sys.stderr); sys.exit(1)")


def test_a_stdio_bot_is_told_how_to_say_hello_on_stdout() -> None:
    report = check_bot(CheckOptions("machiavelli", ("stdio:" + sys.executable, "-c",
                                                    STDIO_BAD_HELLO), time=SAFE,
                                    grace_ms=GRACE))
    connects = report.results[0]
    assert connects.ok is False and connects.hint == STDIO_CONNECT_HINT
    assert "told" in report.log_tail  # it got the error line and wrote on stderr
    assert report.stdio


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.AUTO])
def test_a_missing_program_fails_to_connect_saying_why(sandbox: SandboxMode) -> None:
    report = check_bot(CheckOptions("machiavelli", ("/nonexistent/bot",), time=FAST,
                                    sandbox=SandboxPolicy(sandbox)))
    connects = report.results[0]
    assert connects.ok is False and "/nonexistent/bot" in connects.detail
    assert "No such file or directory" in connects.detail  # the cause, sandboxed or not
    assert [r.check for r in report.results if r.ok is False] == [CheckId.CONNECTS]
    assert not report.passed


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown game"):
        check_bot(CheckOptions("chess", (sys.executable, BROKEN, "good")))
    with pytest.raises(ConfigError, match="bot command"):
        check_bot(CheckOptions("machiavelli", ()))


def test_cli_exit_status_and_hint(runner: CliRunner) -> None:
    good = runner.invoke(main, ["check-bot", "machiavelli",
                                "--grace-ms", "20000", "--games", "2", "--",
                                sys.executable, BROKEN, "good"])
    assert good.exit_code == 0, good.output
    assert "all checks passed" in good.output
    bad = runner.invoke(main, ["check-bot", "machiavelli", "--games", "2", "--move-ms", "300",
                               "--", "python", BROKEN, "wrong-id"])
    assert bad.exit_code == 1, bad.output
    assert "copy the request's `id`" in " ".join(bad.output.split())
    assert HINTS[CheckId.ECHOES_IDS].startswith("copy the request's `id`")


def test_python_sample_bot_passes_without_warning(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check-bot", "machiavelli", "--grace-ms", "20000", "--", "python",
                                  str(ROOT / "sample_bots" / "python" / "random_bot.py")])
    assert result.exit_code == 0, result.output
    assert "replays a game identically" in result.output
    assert "WARN" not in result.output and "warning" not in result.output, result.output


STDIO_LIKE = ("import json, os; print(json.dumps({'type': 'hello', 'token': "
              "os.environ['ARENA_TOKEN'], 'name': 'x', 'protocol': 1}))")
"""A bot that speaks on stdout, run without `stdio:` (found by a bot author in Perl)."""


def test_a_stdio_bot_declared_without_stdio_is_told_to_add_it() -> None:
    from arena.referee.roster import STDIO_HINT

    report = check_bot(CheckOptions("machiavelli", (sys.executable, "-c", STDIO_LIKE),
                                    time=SAFE, grace_ms=1000))
    connects = next(r for r in report.results if r.check is CheckId.CONNECTS)
    assert connects.ok is False and connects.advice == STDIO_HINT


def test_the_referee_tells_a_stdio_bot_declared_without_stdio(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from arena.referee import BotSpec, FaultPolicy, Referee
    from arena.referee.roster import STDIO_HINT

    bots = [BotSpec("perlish", (sys.executable, "-c", STDIO_LIKE)),
            BotSpec("r", ("builtin:random",))]
    with caplog.at_level("ERROR", logger="arena"), \
            Referee(bots, SAFE, FaultPolicy(), tmp_path, announce=False) as referee:
        record = referee.play("machiavelli", {}, 1, ["perlish", "r"])
    assert record.seats[0].forfeit is not None
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("perlish:")]
    assert len(said) == 1 and STDIO_HINT in said[0]


DIES_DEEP = ("import sys\n"
             "print('Error: cannot open weights.bin', file=sys.stderr)\n"
             "for n in range(30):\n"
             "    print(f'    at frame{n} (bot.js:{n}:1)', file=sys.stderr)\n"
             "print('Node.js v20.0.0', file=sys.stderr)\n"
             "sys.exit(1)\n")
"""Exits before its hello as Node does: the error's message above a long stack, and a
banner last."""


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.AUTO])
def test_a_bot_that_ends_before_hello_is_told_the_error_line_not_the_banner(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: SandboxMode) -> None:
    from arena.checkbot.checks import NO_CWD_HINT, START_HINT
    from arena.referee.sandbox import resolve

    (tmp_path / "dies.py").write_text(DIES_DEEP)
    monkeypatch.chdir(tmp_path)  # `python dies.py`, a bare name, found from here
    report = check_bot(CheckOptions("machiavelli", (sys.executable, "dies.py"), time=SAFE,
                                    sandbox=SandboxPolicy(sandbox)))
    connects = next(r for r in report.results if r.check is CheckId.CONNECTS)
    assert connects.ok is False
    assert connects.detail.endswith(": Error: cannot open weights.bin"), connects.detail
    # sandboxed without --cwd, it starts in /tmp: the hint says so
    sandboxed = resolve(SandboxPolicy(sandbox)).bwrap is not None
    assert connects.advice == START_HINT + (NO_CWD_HINT if sandboxed else "")


SLOW_EXIT = ("import signal\nfrom arena.client import run\n"
             "run(lambda request: request.options[0], name='slow-exit')\n"
             "signal.pause()  # shutdown came: the loop ended, the process stays until killed\n")


def test_the_shutdown_check_waits_as_long_as_a_runs_referee(runner: CliRunner) -> None:
    """A run's referee gives a bot 500 ms to exit after shutdown, then SIGTERMs it: a bot
    that exits later passed check-bot (which waited 3 s) and was stopped in every run."""
    from arena.checkbot.checks import CheckOptions as Options
    from arena.referee.referee import GRACE_MS

    assert Options("machiavelli", ("x",)).grace_ms == GRACE_MS
    result = runner.invoke(main, ["check-bot", "machiavelli", "--games", "1", "--",
                                  sys.executable, "-c", SLOW_EXIT])
    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert f"still running {GRACE_MS} ms after" in said and "FAIL" in said, said


@pytest.mark.parametrize(("mode", "failing", "hint"), [
    ("exits-midgame", CheckId.MANY_GAMES, "exited by itself in the middle of a game"),
    ("twice", CheckId.ECHOES_IDS, "send exactly one action per request"),
    ("not-json", CheckId.VALID_ACTIONS, "one JSON object in one frame"),
])
def test_the_hint_names_what_the_bot_did(mode: str, failing: CheckId, hint: str) -> None:
    """Found by a bot author: an exit with status 0 mid-game was told to keep its loop going
    after game_over, an action sent twice to copy the request's id (it had), and a line of
    debugging output to pick one of the options."""
    report = _report(mode)
    failed = [r for r in report.results if r.ok is False]
    assert [r.check for r in failed] == [failing], failed
    assert hint in failed[0].hint, failed[0].hint
    assert "None" not in failed[0].detail


def test_one_game_says_that_the_replay_is_the_processs_second() -> None:
    # "1 game in one process" read as if several had not been tried (a C++ bot's author)
    report = _report("good", games=1)
    many = next(r for r in report.results if r.check is CheckId.MANY_GAMES)
    assert many.ok is True and many.detail == "1 game in one process, the replay below its second"



def test_a_missing_script_is_named_before_any_check(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sandboxed, it read as "can't open file '/tmp/nothere.py'" (the bot's private /tmp)
    # with advice to give --cwd, when the path itself was wrong (from a bot author's audit)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["check-bot", "machiavelli", "--", "python", "nothere.py"])
    assert result.exit_code == 1
    assert result.output.strip() == (f"Error: the bot's command: file 'nothere.py' not found "
                                     f"in {tmp_path.resolve()}")


ALWAYS_DRAWS = ("from arena.client import run\n"
                "run(lambda request, rng: {'type': 'draw'}, name='draws')\n")
"""A rummy bot that never plays: under draw_when_able: false, faulted where a play exists."""


def test_a_rummy_bot_that_draws_where_it_may_not_is_told_why(runner: CliRunner,
                                                                tmp_path: Path) -> None:
    # the hint said "pick one of request.options", which a rummy request never has
    bot = tmp_path / "draws.py"
    bot.write_text(ALWAYS_DRAWS)
    result = runner.invoke(main, ["check-bot", "machiavelli-rummy", "-r",
                                  "draw_when_able=false", "--games", "1", "--", "python",
                                  str(bot)])
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())
    assert "may not draw while a play exists" in output, output
    assert "where options is null the action is free-form" in output
    assert "draw_when_able: false refuses a draw while a play exists" in output


CHATTY = ("import sys\nfrom arena.client import run\n"
          "def act(request, rng):\n"
          "    print('thinking about request', request.id, file=sys.stderr, flush=True)\n"
          "    return rng.choice(request.options) if request.options else None\n"
          "run(act, name='chatty')\n")


def test_workdir_keeps_the_bots_log(runner: CliRunner, tmp_path: Path) -> None:
    # its log went with check-bot's temporary folder: a bot author could not read what his
    # bot printed while it was checked
    bot = tmp_path / "chatty.py"
    bot.write_text(CHATTY)
    kept = tmp_path / "work"
    result = runner.invoke(main, ["check-bot", "machiavelli", "--games", "1", "--workdir",
                                  str(kept), "--", "python", str(bot)])
    assert result.exit_code == 0, result.output
    log = kept / "logs" / "candidate.log"
    assert f"the bot's log: {log}" in " ".join(result.output.split())
    assert "thinking about request" in log.read_text()
    (tmp_path / "a-file").write_text("")
    refused = runner.invoke(main, ["check-bot", "machiavelli", "--workdir",
                                   str(tmp_path / "a-file" / "w"), "--", "python", str(bot)])
    assert refused.exit_code == 1 and isinstance(refused.exception, SystemExit)
    assert refused.output.strip().splitlines() == [
        f"Error: cannot keep the bot's log in {tmp_path / 'a-file' / 'w'} (--workdir): "
        f"{tmp_path / 'a-file'} is a file, not a folder"]
