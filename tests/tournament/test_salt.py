"""The run's secret salt: game seeds a published tournament file does not reveal, kept by
`--resume`, stored once with mode 0600; and the results database's schema 2 (digests)."""

from __future__ import annotations

import shutil
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.errors import StoreError
from arena.core.rng import derive_seed
from arena.tournament.config import TournamentConfig, parse_config
from arena.tournament.runner import Runner
from arena.tournament.secret import SALT_NAME, game_seed
from arena.tournament.store import DB_NAME, SCHEMA_VERSION, GameKey, Store, file_digest
from tests.tournament.fakes import FakeReferee, toy_registry

TEXT = ("name: t\ngame: toy\nplayers_per_game: 2\ngames_per_pairing: 2\nseed: 11\nbots:\n"
        + "".join(f"  - {{name: bot{i}, cmd: 'builtin:random'}}\n" for i in range(4)))


def config() -> TournamentConfig:
    return parse_config(TEXT, "t.yaml", Path("/tmp"), toy_registry())


def run(out: Path, resume: bool = False) -> None:
    Runner(config(), out, concurrency=1, resume=resume, referee=FakeReferee).run()


def seeds(out: Path) -> dict[str, int]:
    with closing(sqlite3.connect(out / DB_NAME)) as db:
        rows = db.execute("SELECT round, tbl, repeat, seed FROM games").fetchall()
    return {f"r{r}-t{t}-g{g}": seed for r, t, g, seed in rows}


def forget(out: Path, repeat: int) -> int:
    """Delete the stored games of one repeat, as if the run had stopped before them."""
    with closing(sqlite3.connect(out / DB_NAME)) as db:
        gone = db.execute("DELETE FROM games WHERE repeat = ?", (repeat,)).rowcount
        db.execute("DELETE FROM seats WHERE repeat = ?", (repeat,))
        db.commit()
    return int(gone)


def test_two_runs_of_one_file_deal_different_games(tmp_path: Path) -> None:
    run(tmp_path / "a")
    run(tmp_path / "b")
    a, b = seeds(tmp_path / "a"), seeds(tmp_path / "b")
    assert a.keys() == b.keys() and len(a) == 12
    assert not set(a.values()) & set(b.values())
    public = {k: derive_seed(11, *(int(x) for x in k[1:].replace("-t", " ").replace("-g", " ")
                                   .split())) for k in a}
    assert not set(a.values()) & set(public.values())  # the YAML seed alone gives none of them


def test_a_copied_salt_deals_the_same_games(tmp_path: Path) -> None:
    run(tmp_path / "a")
    (tmp_path / "b").mkdir()
    shutil.copy(tmp_path / "a" / SALT_NAME, tmp_path / "b" / SALT_NAME)
    run(tmp_path / "b")
    assert seeds(tmp_path / "a") == seeds(tmp_path / "b")
    assert (tmp_path / "a" / "results.json").read_text() == \
        (tmp_path / "b" / "results.json").read_text().replace(str(tmp_path / "b"),
                                                               str(tmp_path / "a"))


def test_resume_keeps_the_seeds(tmp_path: Path) -> None:
    run(tmp_path)
    whole = seeds(tmp_path)
    results = (tmp_path / "results.json").read_text()
    assert forget(tmp_path, 1) == 6
    run(tmp_path, resume=True)
    assert seeds(tmp_path) == whole
    assert (tmp_path / "results.json").read_text() == results


def test_the_salt_is_the_organisers_alone_and_nowhere_else(tmp_path: Path) -> None:
    run(tmp_path)
    path = tmp_path / SALT_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    salt = path.read_text()
    assert len(salt) == 65 and salt.endswith("\n") and int(salt, 16) >= 0
    others = [p for p in tmp_path.rglob("*") if p.is_file() and p != path]
    assert len(others) > 12  # the database, replays, results.json, standings.csv, ...
    assert [p for p in others if salt.strip().encode() in p.read_bytes()] == []
    assert not list(tmp_path.glob(f".{SALT_NAME}*"))  # no temporary file left behind


@pytest.mark.parametrize(("damage", "message"), [
    (lambda p: p.unlink(), r"secret\.salt is missing: this run's game seeds cannot be derived"),
    (lambda p: p.write_text("not hex\n"), r"secret\.salt is malformed \(64 lowercase hex"),
    (lambda p: p.chmod(0o644), r"secret\.salt must belong to you and be readable by you alone "
                               r"\(mode 0644\): chmod 600 it"),
])
def test_resume_without_a_usable_salt_is_one_line_and_changes_nothing(
        tmp_path: Path, damage: object, message: str) -> None:
    run(tmp_path)
    forget(tmp_path, 1)
    kept = seeds(tmp_path)
    damage(tmp_path / SALT_NAME)  # type: ignore[operator]
    with pytest.raises(StoreError, match=message) as info:
        run(tmp_path, resume=True)
    assert "\n" not in str(info.value)
    assert seeds(tmp_path) == kept


def test_resume_without_a_salt_through_the_command_line(runner: CliRunner,
                                                         tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(TEXT.replace("game: toy", "game: machiavelli").replace(
        "players_per_game: 2", "players_per_game: 4").replace("games_per_pairing: 2",
                                                              "games_per_pairing: 1"))
    out = tmp_path / "out"
    assert runner.invoke(main, ["run", str(file), "--out", str(out)]).exit_code == 0
    (out / SALT_NAME).unlink()
    result = runner.invoke(main, ["run", str(file), "--out", str(out), "--resume"])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {out / SALT_NAME} is missing")
    assert result.stderr.count("\n") == 1


def test_the_dry_run_shows_no_seed(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(TEXT.replace("game: toy", "game: machiavelli"))
    result = runner.invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "(seed" not in result.output and "game seeds: secret" in result.output


def test_each_game_stores_the_digest_of_its_replay(tmp_path: Path) -> None:
    run(tmp_path)
    store = Store.open(tmp_path, None)
    rows = store.game_rows()
    store.close()
    assert len(rows) == 12
    for row in rows:
        assert row.digest == file_digest(tmp_path / "replays" / f"{row.key}.jsonl")


def downgrade(out: Path) -> None:
    """Turn a run's database into what schema version 1 wrote (no digests, no `seeds`)."""
    with closing(sqlite3.connect(out / DB_NAME)) as db:
        db.execute("ALTER TABLE games DROP COLUMN digest")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        db.execute("DELETE FROM meta WHERE key = 'seeds'")
        db.commit()


def test_a_version_1_database_is_read_as_is_and_migrated_by_a_run(tmp_path: Path) -> None:
    run(tmp_path)
    forget(tmp_path, 1)
    downgrade(tmp_path)
    (tmp_path / SALT_NAME).unlink()  # version 1 kept none
    before = seeds(tmp_path)
    reader = Store.open(tmp_path, None)
    assert [r.digest for r in reader.game_rows()] == [None] * 6
    reader.close()
    with closing(sqlite3.connect(tmp_path / DB_NAME)) as db:
        assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "1"
    run(tmp_path, resume=True)  # the games of a run begun before salts: public seeds
    with closing(sqlite3.connect(tmp_path / DB_NAME)) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        digests = db.execute("SELECT repeat, digest FROM games").fetchall()
    assert (meta["schema"], meta["seeds"]) == (SCHEMA_VERSION, "public")
    assert {repeat for repeat, digest in digests if digest is None} == {0}
    assert {repeat for repeat, digest in digests if digest is not None} == {1}
    after = seeds(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before
    for key, seed in ((k, v) for k, v in after.items() if k not in before):
        r, t, g = (int(x) for x in key[1:].replace("-t", " ").replace("-g", " ").split())
        assert seed == game_seed(11, None, GameKey(r, t, g)) == derive_seed(11, r, t, g)
    assert not (tmp_path / SALT_NAME).exists()


def test_a_database_from_a_newer_arena_is_refused(tmp_path: Path) -> None:
    run(tmp_path)
    with closing(sqlite3.connect(tmp_path / DB_NAME)) as db:
        db.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
        db.commit()
    with pytest.raises(StoreError, match="schema version 3, which this arena"):
        Store.open(tmp_path, None)
