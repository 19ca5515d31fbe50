"""The report's Settings table from stored settings and what the games recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.report.played import (
    UNREAD,
    Header,
    Played,
    TimeSpan,
    Versions,
    read_header,
    time_history,
    versions,
)
from arena.report.settingtable import arena_versions, setting_rows

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


def test_the_arena_row_says_which_version_played_and_which_built_the_report() -> None:
    def shown(played: dict[str, int], unrecorded: int = 0, unread: int = 0) -> str:
        return arena_versions(Versions(played, unrecorded, unread, "0.10.0"))

    assert shown({"0.10.0": 5}) == "0.10.0"
    assert shown({"0.9.0": 5}) == "0.9.0 (report built with 0.10.0)"
    assert shown({"0.9.0": 2, "0.10.0": 3}) == (
        "0.9.0 (2 games), 0.10.0 (3 games) (report built with 0.10.0)")
    assert shown({"0.10.0": 3}, unrecorded=2) == (
        "0.10.0 (3 games); not recorded for 2 games, played before arena recorded its version")
    assert shown({}, unrecorded=4) == ("not recorded: the games were played before arena "
                                       "recorded its version (report built with 0.10.0)")
    assert shown({}, unrecorded=1, unread=1) == (
        "not recorded for 1 game, played before arena recorded its version; not known for 1 "
        "game without a readable replay (report built with 0.10.0)")
    assert shown({}) == "no games played yet (report built with 0.10.0)"
    table = dict(setting_rows(TOURNAMENT, RECORDED, Played(Versions({"0.0.9": 1}, 0, 0, "1"))))
    assert table["arena"] == "0.0.9 (report built with 1)"


def test_time_controls_are_grouped_newest_first_and_older_headers_join_what_agrees() -> None:
    now = {"move_ms": 500, "bank_ms": 0, "startup_ms": 7000}
    headers = [Header("0.1.0", {"move_ms": 1000, "bank_ms": 0}),  # before startup_ms
               Header("0.1.0", {"move_ms": 500, "bank_ms": 0}),
               UNREAD,
               Header("0.1.0", dict(now)), Header("0.1.0", dict(now))]
    times = time_history(headers, [1.0, 2.0, 3.0, None, 5.0], {})
    assert times == (TimeSpan(now, 3, 2.0, 5.0),
                     TimeSpan({"move_ms": 1000, "bank_ms": 0}, 1, 1.0, 1.0))
    rows = dict(setting_rows(TOURNAMENT, {"time": now}, Played(versions(headers, "0.1.0"),
                                                                 times)))
    assert rows["time control"].startswith("500 ms a move; 7000 ms to start (a bot's hello) "
                                           "(the newest 3 games, ")
    assert rows["earlier time controls"].startswith(
        "1000 ms a move; start-up limit not recorded (games played before arena recorded it) "
        "(1 game, ")
    assert rows["arena"] == "0.1.0 (4 games); not known for 1 game without a readable replay"
    assert "earlier time controls" not in dict(setting_rows(TOURNAMENT, {"time": now},
                                                            Played(versions([], "0"), times[:1])))


@pytest.mark.parametrize("first", [
    b"", b"not json\n", b"[1, 2]\n", b'{"type": "decision"}\n', b"[" * 100_000,
    b'{"type": "header", "arena": 7, "time": [1]}\n', b"\xff\xfe\n"])
def test_a_header_that_cannot_be_read_or_says_nothing_is_not_an_error(
        tmp_path: Path, first: bytes) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(first)
    found = read_header(path)
    assert found.arena is None and found.time is None
    assert read_header(tmp_path / "missing.jsonl") is UNREAD and read_header(None) is UNREAD
    path.write_bytes(b'{"type": "header", "arena": "0.2.0", "time": {"move_ms": 5, '
                     b'"bank_ms": true, "startup_ms": "x", "other": 1}}\n')
    assert read_header(path) == Header("0.2.0", {"move_ms": 5})
