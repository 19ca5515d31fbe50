"""Withdrawal (`--withdraw BOT` on resume) and late entry to a Swiss (`--enter BOT`): played
games stay, no new game for a withdrawn bot, a Swiss goes on without it or with the
newcomer, and both are recorded in the run (so later resumes and `arena standings` agree)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from arena.core.errors import ArenaError
from arena.tournament.outputs import standings_from_store
from arena.tournament.runner import Runner
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
    assert next(r for r in table.rows if r.bot == "bot7").games == 2
    resume(bigger, tmp_path)  # the recorded entry keeps the file accepted
    with pytest.raises(ArenaError, match="in the run already"):
        resume(bigger, tmp_path, enter=("bot7",))


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
