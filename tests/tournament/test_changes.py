"""Withdrawal (`--withdraw BOT` on resume) and late entry to a Swiss (`--enter BOT`): played
games stay, no new game for a withdrawn bot, a Swiss goes on without it or with the
newcomer, and both are recorded in the run (so later resumes and `arena standings` agree)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from arena.core.errors import ArenaError, StoreError
from arena.tournament.outputs import standings_from_store, standings_rows
from arena.tournament.runner import Runner
from arena.tournament.settings import RULES, Settings
from arena.tournament.store import Store
from tests.tournament.fakes import FakeReferee
from tests.tournament.test_runner import config, pin_salt, run


def cut_after(out: Path, last: int) -> None:
    """Leave the run in `out` as if it had stopped once round `last` was played."""
    with closing(sqlite3.connect(out / "results.sqlite")) as db, db:
        for table in ("games", "seats", "rounds"):
            db.execute(f"DELETE FROM {table} WHERE round > ?", (last,))


def resume(cfg: object, out: Path, withdraw: tuple[str, ...] = (),
           enter: tuple[str, ...] = ()) -> None:
    pin_salt(out)
    Runner(cfg, out, concurrency=1, resume=True, referee=FakeReferee,  # type: ignore[arg-type]
           withdraw=withdraw, enter=enter).run()


def seated(out: Path, rounds: range) -> set[str]:
    store = Store.open(out, None)
    try:
        return {s.bot for g in store.games() if g.key.round in rounds for s in g.record.seats}
    finally:
        store.close()


def test_a_withdrawn_bot_keeps_its_games_and_plays_no_more_in_a_swiss(tmp_path: Path) -> None:
    cfg = config("swiss", extra="rounds: 4\n", bots=7)
    run(cfg, tmp_path, concurrency=1)
    cut_after(tmp_path, 2)
    resume(cfg, tmp_path, withdraw=("bot3",))
    assert "bot3" in seated(tmp_path, range(1, 3))
    assert "bot3" not in seated(tmp_path, range(3, 5))
    store = Store.open(tmp_path, None)
    plans = store.rounds()
    store.close()
    assert all("bot3" not in t.bots and "bot3" not in p.byes for p in plans[2:]
               for t in p.tables)
    assert all(not p.byes for p in plans[2:])  # six bots left: no bye
    settings, table = standings_from_store(tmp_path)
    assert settings["withdrawn"] == [{"bot": "bot3", "after_round": 2}]
    row = next(r for r in table.rows if r.bot == "bot3")
    assert row.games + row.byes == 2  # rounds 1 and 2
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["tournament"]["withdrawn"] == settings["withdrawn"]
    resume(cfg, tmp_path)  # a later resume keeps the withdrawal
    assert "bot3" not in seated(tmp_path, range(3, 5))
    with pytest.raises(ArenaError, match="withdrew already"):
        resume(cfg, tmp_path, withdraw=("bot3",))
    with pytest.raises(ArenaError, match="no bot of that name"):
        resume(cfg, tmp_path, withdraw=("nobody",))


def test_a_withdrawn_bot_plays_none_of_its_unplayed_round_robin_games(tmp_path: Path) -> None:
    cfg = config(bots=5)
    run(cfg, tmp_path, concurrency=1)
    cut_after(tmp_path, 2)
    resume(cfg, tmp_path, withdraw=("bot0",))
    assert "bot0" in seated(tmp_path, range(1, 3))
    assert "bot0" not in seated(tmp_path, range(3, 99))
    store = Store.open(tmp_path, None)
    later = [g for g in store.games() if g.key.round > 2]
    plans = [p for p in store.rounds() if p.round > 2]
    store.close()
    # every game of the later rounds without bot0 was played
    assert len(later) == sum(1 for p in plans for t in p.tables if "bot0" not in t.bots)


def test_a_bot_enters_a_swiss_between_rounds(tmp_path: Path) -> None:
    cfg = config("swiss", extra="rounds: 4\n", bots=7)
    run(cfg, tmp_path, concurrency=1)
    cut_after(tmp_path, 2)
    bigger = config("swiss", extra="rounds: 4\n", bots=8)  # bot7 added to the file
    resume(bigger, tmp_path, enter=("bot7",))
    assert "bot7" not in seated(tmp_path, range(1, 3))
    assert "bot7" in seated(tmp_path, range(3, 5))
    settings, table = standings_from_store(tmp_path)
    assert settings["entered"] == [{"bot": "bot7", "after_round": 2}]
    row = next(r for r in table.rows if r.bot == "bot7")
    assert row.games == 2
    # as a chess open scores the rounds before a late entry: nothing (no bye, no forfeit)
    store = Store.open(tmp_path, None)
    games = store.games()
    store.close()
    rule = Settings.from_json(settings).rule
    assert row.byes == row.forfeit_wins == 0
    assert row.points == sum(rule.game([s.placing for s in g.record.seats])[i]
                             for g in games for i, s in enumerate(g.record.seats)
                             if s.bot == "bot7")
    resume(bigger, tmp_path)  # the recorded entry keeps the file accepted
    with pytest.raises(ArenaError, match="in the run already"):
        resume(bigger, tmp_path, enter=("bot7",))
    # the file without the newcomer (found by an organiser): said so, not a forged pairing
    with pytest.raises(ArenaError, match=r"bot bot7 entered this run after round 2 \(--enter\) "
                                         r"but is not in t.yaml: resume with the file"):
        resume(cfg, tmp_path)


def test_late_entry_is_for_a_swiss_only(tmp_path: Path) -> None:
    cfg = config(bots=5)
    run(cfg, tmp_path, concurrency=1)
    with pytest.raises(ArenaError, match="only a Swiss"):
        resume(cfg, tmp_path, enter=("bot1",))


def test_withdraw_and_enter_need_resume(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nbots:\n  - {name: a, cmd: 'builtin:random'}\n"
                    "  - {name: b, cmd: 'builtin:random'}\n")
    for option in ("--withdraw", "--enter"):
        result = CliRunner().invoke(main, ["run", str(file), option, "a"])
        assert result.exit_code == 2 and "add --resume" in result.output
        assert not (tmp_path / "runs").exists()


def set_settings(out: Path, **changes: object) -> None:
    """Rewrite keys of the settings a run stored (as an older arena would have left them)."""
    with closing(sqlite3.connect(out / "results.sqlite")) as db, db:
        data = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'")
                          .fetchone()[0])
        data.update(changes)
        for key in [k for k, v in changes.items() if v is None]:
            del data[key]
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(data),))


def test_a_withdrawal_from_a_paired_round_gives_forfeit_wins(tmp_path: Path) -> None:
    # a chess arbiter scores a paired game the opponent never came to as won
    cfg = config("swiss", extra="rounds: 4\n", bots=6)
    run(cfg, tmp_path, concurrency=1)
    with closing(sqlite3.connect(tmp_path / "results.sqlite")) as db, db:
        for name in ("games", "seats"):  # round 3 paired, none of its games played
            db.execute(f"DELETE FROM {name} WHERE round > 2")
        db.execute("DELETE FROM rounds WHERE round > 3")
    store = Store.open(tmp_path, None)
    third = next(p for p in store.rounds() if p.round == 3)
    store.close()
    opponent = next(b for t in third.tables if "bot3" in t.bots for b in t.bots if b != "bot3")
    resume(cfg, tmp_path, withdraw=("bot3",))
    stored, table = standings_from_store(tmp_path)
    assert stored["withdrawn"] == [{"bot": "bot3", "after_round": 3}]
    assert "bot3" not in seated(tmp_path, range(3, 5))
    store = Store.open(tmp_path, None)
    games, rounds = store.games(), store.rounds()
    store.close()
    settings = Settings.from_json(stored)
    unforfeited = replace(settings, withdrawn=()).standings(games, rounds)
    points = {r.bot: r.points for r in table.rows}
    before = {r.bot: r.points for r in unforfeited.rows}
    # the opponent gets a win's points (2 seats: 1) for the game never played, no game
    assert points[opponent] == before[opponent] + 1
    row = next(r for r in table.rows if r.bot == opponent)
    assert row.forfeit_wins == 1 and row.games == 3 - row.byes
    assert all(points[b] == before[b] for b in points if b != opponent)
    assert all(r.forfeit_wins == 0 for r in table.rows if r.bot != opponent)
    # and the table says so: the withdrawn bot marked, the forfeit win in a column
    text = {r[1]: r for r in standings_rows(table)[1:]}
    header = standings_rows(table)[0]
    assert "bot3 (withdrawn)" in text and [r.bot for r in table.rows if r.withdrawn] == ["bot3"]
    assert text[opponent][header.index("fw")] == "1"


def test_a_forfeit_at_a_table_of_four_shares_the_places_above_the_withdrawn() -> None:
    from arena.tournament.pairing import RoundPlan, Table
    from arena.tournament.settings import Change

    plan = RoundPlan(1, (Table(0, (("a", "b", "c", "d"),)),))
    settings = Settings(format="swiss", bots=("a", "b", "c", "d"), table_size=4,
                        withdrawn=(Change("d", 1),))
    table = settings.standings([], [plan], with_fit=False)
    # d takes the last place, a, b and c share places 1-3 (3, 2 and 1 points): 2 each
    assert {r.bot: r.points for r in table.rows} == {"a": 2, "b": 2, "c": 2, "d": 0}
    assert {r.bot: r.forfeit_wins for r in table.rows} == {"a": 1, "b": 1, "c": 1, "d": 0}
    round_robin = replace(settings, format="round-robin").standings([], [plan], False)
    assert all(r.points == 0 for r in round_robin.rows)  # ranked per game: nothing to make up


def swap_round_pairing(out: Path, number: int) -> None:
    """Make the stored pairing of round `number` another one (as older rules paired it)."""
    with closing(sqlite3.connect(out / "results.sqlite")) as db, db:
        data = json.loads(db.execute("SELECT pairing FROM rounds WHERE round = ?",
                                     (number,)).fetchone()[0])
        first, second = data["tables"][0][0], data["tables"][1][0]
        first[0], second[0] = second[0], first[0]
        db.execute("UPDATE rounds SET pairing = ? WHERE round = ?", (json.dumps(data), number))


def test_a_swiss_begun_under_older_rules_is_refused_in_one_line(tmp_path: Path) -> None:
    cfg = config("swiss", extra="rounds: 4\n", bots=7)
    run(cfg, tmp_path, concurrency=1)
    cut_after(tmp_path, 2)
    set_settings(tmp_path, rules=None)  # stored before rules were numbered
    swap_round_pairing(tmp_path, 2)
    with pytest.raises(StoreError) as info:
        resume(cfg, tmp_path)
    message = str(info.value)
    assert "\n" not in message and "older arena (tournament rules 1" in message
    assert "round 2" in message and f"arena standings {tmp_path}" in message
    assert standings_from_store(tmp_path)[1].games == 2 * 3  # its games still rank
    assert seated(tmp_path, range(3, 5)) == set()  # nothing played


def test_an_older_run_whose_pairings_agree_resumes_and_takes_todays_rules(
        tmp_path: Path) -> None:
    cfg = config("swiss", extra="rounds: 4\n", bots=7)
    run(cfg, tmp_path, concurrency=1)
    cut_after(tmp_path, 2)
    set_settings(tmp_path, rules=None)
    resume(cfg, tmp_path)
    settings, table = standings_from_store(tmp_path)
    assert settings["rules"] == RULES and table.games == 4 * 3


def test_the_progress_total_of_a_swiss_follows_a_withdrawal(tmp_path: Path) -> None:
    """Found by an organiser: '24 games to play' after --withdraw, and 22 were played; the
    total was round 1's tables times the rounds."""
    from arena.tournament.runner import Progress

    cfg = config("swiss", extra="rounds: 4\n", bots=6)  # 3 tables a round; 2 after
    run(cfg, tmp_path, concurrency=1)
    cut_after(tmp_path, 2)
    pin_salt(tmp_path)
    seen: list[Progress] = []
    Runner(cfg, tmp_path, concurrency=1, resume=True, referee=FakeReferee,
           withdraw=("bot3",), on_progress=seen.append).run()
    store = Store.open(tmp_path, None)
    played = len(store.games())
    store.close()
    assert seen[-1].done == seen[-1].total == played
