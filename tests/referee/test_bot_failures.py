"""A bot that cannot start, exits or crashes: its forfeit says why, in the record and the
replay, and the referee's log shows the bot's own last lines."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from arena.core.record import ForfeitReason, GameRecord
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.roster import BAD_TOKEN_NOTE
from arena.referee.sandbox import SandboxMode, SandboxPolicy

HERE = Path(__file__).resolve().parent
MISBEHAVE = str(HERE / "bots" / "misbehave.py")
TIME = TimeControl(move_ms=2000, startup_ms=20_000)


def play(cmd: tuple[str, ...], tmp_path: Path,
         time: TimeControl = TIME) -> tuple[GameRecord, list[dict[str, object]]]:
    bots = [BotSpec("bad", cmd, env={"PIDFILE": str(tmp_path / "pids")}),
            BotSpec("other", ("builtin:random",))]
    replay = tmp_path / "game.jsonl"
    # unsandboxed: the misbehaving bot writes its pid outside, which a sandbox forbids
    with Referee(bots, time, FaultPolicy(), tmp_path,
                 sandbox=SandboxPolicy(SandboxMode.NONE)) as referee:
        record = referee.play("machiavelli", {}, 1, ["bad", "other"], replay)
    lines = [json.loads(line) for line in replay.read_text().splitlines()]
    return record, [line for line in lines if line["type"] == "forfeit"]


def test_a_missing_command_is_named(tmp_path: Path) -> None:
    record, forfeits = play(("no-such-program-anywhere", "x"), tmp_path)
    assert record.seats[0].forfeit is ForfeitReason.NO_CONNECT
    assert record.details["forfeits"] == {
        "0": "no_connect: command not found: no-such-program-anywhere"}
    assert forfeits[0]["detail"] == "command not found: no-such-program-anywhere"


def test_an_exit_before_the_hello_gives_its_status_and_last_lines(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, "arena.referee")
    record, forfeits = play((sys.executable, MISBEHAVE, "exit"), tmp_path)
    assert record.details["forfeits"]["0"] == "no_connect: exited with status 3 before its hello"
    assert forfeits[0]["detail"] == "exited with status 3 before its hello"
    bad = (tmp_path / "logs" / "bad.log").read_text()
    assert "game game starts" not in bad  # it never had a game
    assert "exited with status 3" in caplog.text


def test_a_bot_that_never_says_hello_finds_why_in_its_own_log(tmp_path: Path) -> None:
    # its log was empty: its author, who reads that file, saw no trace of the referee
    record, _ = play((sys.executable, MISBEHAVE, "never"), tmp_path,
                     TimeControl(move_ms=2000, startup_ms=300))
    assert record.details["forfeits"]["0"] == "no_connect: no valid hello within 300 ms"
    bad = (tmp_path / "logs" / "bad.log").read_text()
    assert bad.endswith("] no valid hello within 300 ms: stopped; it forfeits its games\n")


def test_a_bot_refused_for_its_token_is_told_so_not_that_it_never_said_hello(
        tmp_path: Path) -> None:
    # it exits on the bad_token error, as PROTOCOL.md asks: "exited with status 1 before
    # its hello" sent its author looking for a crash at start
    record, forfeits = play((sys.executable, MISBEHAVE, "refused"), tmp_path)
    assert record.seats[0].forfeit is ForfeitReason.NO_CONNECT
    assert forfeits[0]["detail"] == f"its hello was refused: {BAD_TOKEN_NOTE}"
    assert "unknown token" in (tmp_path / "logs" / "bad.log").read_text()  # what it was told


def test_a_protocol_of_4000_digits_is_cut_where_it_is_quoted(tmp_path: Path) -> None:
    # quoted whole in its failure: 4 KB in the record and the replay of each of its games
    record, forfeits = play((sys.executable, MISBEHAVE, "big_protocol"), tmp_path)
    why = str(record.details["forfeits"]["0"])
    assert why.startswith("no_connect: protocol 1000") and "(4001 digits)" in why, why
    assert len(why) < 200 and len(str(forfeits[0]["detail"])) < 200


def test_a_crash_mid_game_gives_its_status(tmp_path: Path) -> None:
    record, forfeits = play((sys.executable, MISBEHAVE, "crash"), tmp_path)
    assert record.seats[0].forfeit is ForfeitReason.CRASHED
    assert record.details["forfeits"]["0"] == "crashed: exited with status 7"
    assert forfeits[0]["reason"] == "crashed" and forfeits[0]["detail"] == "exited with status 7"
    assert "game game starts (seats: bad, other), replay game.jsonl" in \
        (tmp_path / "logs" / "bad.log").read_text()


def test_a_fault_and_a_forfeit_name_their_game_and_request(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Found by an organiser (with two workers, which game did a warning come from?) and a
    bot author (his log has request ids, the warning had decision numbers only)."""
    caplog.set_level(logging.WARNING, "arena.referee")
    play((sys.executable, MISBEHAVE, "illegal"), tmp_path)
    faults = [r.getMessage() for r in caplog.records if "fault at decision" in r.getMessage()]
    assert faults and all(m.startswith("bad (seat 0, game game) fault at decision ")
                          for m in faults), faults
    assert all(" (request " in m for m in faults), faults
    forfeits = [r.getMessage() for r in caplog.records if "forfeits:" in r.getMessage()]
    assert forfeits and forfeits[0].startswith("bad (seat 0, game game) forfeits: max_faults")
