"""The report's Settings table from stored settings and what the games recorded."""

from __future__ import annotations

from arena.report.settingtable import setting_rows

TOURNAMENT = {"name": "t", "format": "round-robin", "bots": ["a", "b"], "points": None,
              "rules": 5, "withdrawn": []}
RECORDED = {"arena": "0.1.0", "rules": {"edition": "revised"}, "max_faults": 3}


def test_an_old_replay_without_the_start_up_limit_still_gives_a_row() -> None:
    rows = setting_rows(TOURNAMENT, {**RECORDED, "time": {"move_ms": 1000, "bank_ms": 5000}})
    assert dict(rows)["time control"] == (
        "1000 ms a move + a bank of 5000 ms a game (time over a move's limit); start-up "
        "limit not recorded (games played before arena recorded it)")
    assert [name for name, _ in rows] == [
        "name", "format", "bots", "tournament rules", "arena", "game rules", "time control",
        "max_faults"]
    assert dict(rows)["time control"] and dict(setting_rows(TOURNAMENT, RECORDED))[
        "time control"] == "not recorded"


def test_a_ladders_file_and_its_games_give_one_row_each() -> None:
    ladder = {"name": "l", "rules": {"edition": "classic"},
              "time": {"move_ms": 500, "bank_ms": 0, "startup_ms": 7000},
              "faults": {"max_faults": 2}}
    rows = setting_rows(ladder, {**RECORDED, "time": {"move_ms": 500, "bank_ms": 0}})
    names = [name for name, _ in rows]
    assert names == ["name", "arena", "game rules", "time control", "max_faults"]
    shown = dict(rows)
    assert shown["game rules"] == {"edition": "revised"}  # as the games were played
    assert shown["time control"] == "500 ms a move; 7000 ms to start (a bot's hello)"
    assert shown["max_faults"] == 3
    alone = dict(setting_rows(ladder, {"arena": "0.1.0"}))
    assert alone["game rules"] == {"edition": "classic"} and alone["max_faults"] == 2
