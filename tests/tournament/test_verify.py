"""`arena verify` and the replay warnings of `arena standings`, on a real tournament run
(machiavelli, built-in random bots) that each test copies and then tampers with."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.tournament.config import parse_config
from arena.tournament.runner import Runner
from arena.tournament.secret import SALT_NAME

TOURNAMENT = """\
name: verify-check
game: machiavelli
players_per_game: 4
games_per_pairing: 1
seed: 31
bots:
""" + "".join(f"  - {{name: bot{i}, cmd: 'builtin:random'}}\n" for i in range(5))
GAMES = 5  # every 4-subset of 5 bots, once


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verify") / "run"
    Runner(parse_config(TOURNAMENT, "t.yaml"), out, concurrency=2).run()
    return out


@pytest.fixture
def run(pristine: Path, tmp_path: Path) -> Path:
    """A copy of the pristine run to tamper with."""
    return Path(shutil.copytree(pristine, tmp_path / "run"))


def verify(runner: CliRunner, out: Path) -> Result:
    return runner.invoke(main, ["verify", str(out)])


def standings(runner: CliRunner, out: Path) -> Result:
    result = runner.invoke(main, ["standings", str(out)])
    assert result.exit_code == 0, result.output
    assert "bot0" in result.stdout and f"{GAMES} games" in result.stdout  # still the table
    return result


def first_key(out: Path) -> str:
    return sorted(p.stem for p in (out / "replays").iterdir())[0]


def failed_with(result: Result, out: Path, mismatches: int) -> list[str]:
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().endswith(
        f"{out}: {mismatches} {'mismatch' if mismatches == 1 else 'mismatches'} in {GAMES} "
        "games"), result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == mismatches, lines
    return lines


def edit_record(out: Path, key: str, change: object) -> None:
    """Apply `change` to the stored record of game `key` (what standings are made from)."""
    r, t, g = (int(x) for x in re.findall(r"\d+", key))
    with closing(sqlite3.connect(out / "results.sqlite")) as db:
        text = db.execute("SELECT record FROM games WHERE round=? AND tbl=? AND repeat=?",
                          (r, t, g)).fetchone()[0]
        record = json.loads(text)
        change(record)  # type: ignore[operator]
        db.execute("UPDATE games SET record=? WHERE round=? AND tbl=? AND repeat=?",
                   (json.dumps(record), r, t, g))
        db.commit()


def test_an_untouched_run_verifies(runner: CliRunner, pristine: Path) -> None:
    result = verify(runner, pristine)
    assert result.exit_code == 0, result.output
    assert re.fullmatch(rf"{re.escape(str(pristine))}: {GAMES} games verified, \d+ decisions "
                        r"re-simulated, no mismatch; standings match results.json and "
                        r"standings.csv\n", result.stdout), result.stdout
    assert standings(runner, pristine).stderr == ""


def test_a_forged_score_in_the_database_is_named(runner: CliRunner, run: Path) -> None:
    key = first_key(run)
    scores: list[int] = []

    def forge(record: dict[str, list[dict[str, int]]]) -> None:
        scores.append(record["seats"][0]["score"])
        record["seats"][0]["score"] += 7

    edit_record(run, key, forge)
    [line] = failed_with(verify(runner, run), run, 1)
    assert line == f"{key}: stored record: seat 0 score {scores[0] + 7}, replay {scores[0]}"
    warning = standings(runner, run).stderr
    assert warning == (f"warning: {key}: the stored result differs from the outcome in replay "
                       f"replays/{key}.jsonl (seat 0 score {scores[0] + 7}, replay "
                       f"{scores[0]})\n")


def test_a_forged_seats_row_is_named(runner: CliRunner, run: Path) -> None:
    key = first_key(run)
    with closing(sqlite3.connect(run / "results.sqlite")) as db:
        db.execute("UPDATE seats SET placing = 9 WHERE seat = 1 AND round || '-' || tbl || '-' "
                   "|| repeat = ?", ("-".join(re.findall(r"\d+", key)),))
        db.commit()
    [line] = failed_with(verify(runner, run), run, 1)
    assert re.fullmatch(rf"{key}: seats rows: seat 1 placing 9, replay \d", line)


def test_an_edited_replay_line_fails_its_digest(runner: CliRunner, run: Path) -> None:
    key = first_key(run)
    path = run / "replays" / f"{key}.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    step = json.loads(lines[1])
    step["time_ms"] += 1.0  # harmless to the game, but not what was played
    lines[1] = json.dumps(step, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    [line] = failed_with(verify(runner, run), run, 1)
    assert line == f"{key}: replay replays/{key}.jsonl differs from the digest stored with the game"
    assert standings(runner, run).stderr == (
        f"warning: {key}: replay replays/{key}.jsonl does not match the digest stored with the "
        "game (changed after it was committed)\n")


def test_a_forged_outcome_with_a_forged_digest_fails_the_re_simulation(
        runner: CliRunner, run: Path) -> None:
    # everything the database and the replay say agrees; only the engine disagrees
    key = first_key(run)
    path = run / "replays" / f"{key}.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    outcome = json.loads(lines[-1])
    outcome["scores"][0] += 50
    outcome["record"]["seats"][0]["score"] += 50
    lines[-1] = json.dumps(outcome, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    edit_record(run, key, lambda record: record.update(seats=outcome["record"]["seats"]))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with closing(sqlite3.connect(run / "results.sqlite")) as db:
        db.execute("UPDATE games SET digest = ? WHERE replay LIKE ?", (digest, f"%{key}.jsonl"))
        db.execute("UPDATE seats SET score = score + 50 WHERE seat = 0 AND round || '-' || tbl "
                   "|| '-' || repeat = ?", ("-".join(re.findall(r"\d+", key)),))
        db.commit()
    assert standings(runner, run).stderr == ""  # the cheap check cannot see it
    result = verify(runner, run)
    assert result.exit_code == 1
    assert any(line.startswith(f"{key}: re-simulation: outcome differs")
               for line in result.stdout.splitlines()), result.stdout


def test_a_last_line_nested_too_deeply_is_left_to_verify_not_a_traceback(
        runner: CliRunner, run: Path) -> None:
    # json's decoder raised RecursionError on it, which the cheap check let through
    key = first_key(run)
    path = run / "replays" / f"{key}.jsonl"
    path.write_bytes(path.read_bytes() + b"[" * 100_000 + b"\n")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with closing(sqlite3.connect(run / "results.sqlite")) as db:
        db.execute("UPDATE games SET digest = ? WHERE replay LIKE ?", (digest, f"%{key}.jsonl"))
        db.commit()
    result = standings(runner, run)
    assert result.exit_code == 0 and result.exception is None, result.output
    assert result.stderr == ""
    checked = verify(runner, run)
    assert checked.exit_code == 1 and isinstance(checked.exception, SystemExit)
    assert f"{key}: " in checked.stdout and "nested too deeply" in checked.stdout, \
        checked.output


def test_a_planted_replay_is_named(runner: CliRunner, run: Path) -> None:
    shutil.copy(run / "replays" / f"{first_key(run)}.jsonl", run / "replays" / "r9-t0-g0.jsonl")
    [line] = failed_with(verify(runner, run), run, 1)
    assert line.startswith("replays/r9-t0-g0.jsonl: no stored game references this file")


def test_a_deleted_replay_is_named(runner: CliRunner, run: Path) -> None:
    key = first_key(run)
    (run / "replays" / f"{key}.jsonl").unlink()
    result = verify(runner, run)
    [line] = failed_with(result, run, 1)
    assert line == f"{key}: replay replays/{key}.jsonl is missing"
    assert "standings not compared" in result.stderr
    warning = standings(runner, run).stderr
    assert warning == f"warning: {key}: replay replays/{key}.jsonl is missing\n"


def test_forged_results_files_are_named(runner: CliRunner, run: Path) -> None:
    results = json.loads((run / "results.json").read_text())
    top = results["standings"][0]
    top["points"] += 1
    (run / "results.json").write_text(json.dumps(results))
    csv = (run / "standings.csv").read_text().splitlines()
    cells = csv[2].split(",")
    cells[3] = "99.0"  # the second bot's points
    csv[2] = ",".join(cells)
    (run / "standings.csv").write_text("\n".join(csv) + "\n")
    lines = failed_with(verify(runner, run), run, 2)
    assert lines[0] == (f"results.json: {top['bot']} points {top['points']!r}, verified games "
                        f"give {top['points'] - 1!r}")
    assert re.fullmatch(rf"standings.csv: {cells[1]} points '99.0', verified games give '[\d.]+'",
                        lines[1])


def test_game_seeds_are_checked_against_the_secret_salt(runner: CliRunner, run: Path) -> None:
    (run / SALT_NAME).write_text("0" * 64 + "\n")
    lines = failed_with(verify(runner, run), run, GAMES)
    assert all(re.fullmatch(r"r\d+-t\d+-g\d+: seed \d+ is not the one this run's tournament "
                            r"seed and secret salt give this game", line) for line in lines)
    (run / SALT_NAME).unlink()
    [line] = failed_with(verify(runner, run), run, 1)
    assert line.startswith(f"secret.salt: {run / SALT_NAME} is missing")


def test_a_salt_others_can_read_is_a_note_and_its_seeds_are_still_checked(
        runner: CliRunner, run: Path) -> None:
    # "1 mismatch(es)" and no seed checked, for a salt copied with mode 0644: the games
    # were right, and the mode is what a resume refuses, not a result
    (run / SALT_NAME).chmod(0o644)
    result = verify(runner, run)
    assert result.exit_code == 0, result.output
    assert "no mismatch" in result.stdout
    assert result.stderr == (f"note: secret.salt: {run / SALT_NAME} must belong to you and "
                             "be readable by you alone (mode 0644): chmod 600 it\n")
    (run / SALT_NAME).write_text("0" * 64 + "\n")  # and the seeds were checked with it
    failed_with(verify(runner, run), run, GAMES)


def test_a_link_in_place_of_a_replay_is_never_followed(runner: CliRunner, run: Path) -> None:
    key = first_key(run)
    path = run / "replays" / f"{key}.jsonl"
    path.unlink()
    path.symlink_to("/dev/zero")  # read, it would never end
    [line] = failed_with(verify(runner, run), run, 1)
    assert line == f"{key}: replay replays/{key}.jsonl is not a regular file"
    warning = standings(runner, run).stderr
    assert warning == f"warning: {key}: replay replays/{key}.jsonl is not a regular file\n"


def test_a_replay_of_the_wrong_shape_is_a_mismatch_not_a_crash(runner: CliRunner,
                                                               run: Path) -> None:
    key = first_key(run)
    path = run / "replays" / f"{key}.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    outcome = json.loads(lines[-1])
    del outcome["termination"]
    lines[-1] = json.dumps(outcome) + "\n"
    path.write_text("".join(lines))
    result = verify(runner, run)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stdout.splitlines() == [
        f"{key}: replay replays/{key}.jsonl differs from the digest stored with the game",
        f"{key}: re-simulation: the replay is not valid (KeyError: 'termination')"]


def test_a_run_begun_under_older_rules_is_verified_without_its_results_files(
        runner: CliRunner, run: Path) -> None:
    # its results.json was ranked by the older rules: comparing it would list every
    # difference of the rules as a mismatch
    with closing(sqlite3.connect(run / "results.sqlite")) as db, db:
        data = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'")
                          .fetchone()[0])
        del data["rules"]
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(data),))
    result = verify(runner, run)
    assert result.exit_code == 0, result.output
    assert f"{GAMES} games verified" in result.stdout
    assert "begun under older tournament rules (1; this arena follows" in result.stderr


def test_a_run_still_going_verifies_its_stored_games_only(runner: CliRunner, run: Path) -> None:
    """Found by an organiser: verify during a run named the replay of the game in play as
    planted, and failed. While a run holds the lock, what is stored is verified, and what
    is still being written is left alone."""
    import fcntl

    from arena.tournament.store import Store

    shutil.copy(run / "replays" / f"{first_key(run)}.jsonl", run / "replays" / "r9-t0-g0.jsonl")
    with open(run / "results.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a run in progress holds it
        assert Store.in_use(run)
        going = verify(runner, run)
    assert going.exit_code == 0, going.output
    assert "the run is still going" in " ".join(going.stderr.split())
    assert not Store.in_use(run)
    [line] = failed_with(verify(runner, run), run, 1)  # ended: the planted file is named
    assert line.startswith("replays/r9-t0-g0.jsonl")


def test_standings_written_before_forfeits_were_so_called_still_match(
        runner: CliRunner, run: Path) -> None:
    csv_path, json_path = run / "standings.csv", run / "results.json"
    csv_path.write_text(csv_path.read_text().replace("forfeits", "crashes", 1))
    json_path.write_text(json_path.read_text().replace('"forfeits"', '"crashes"'))
    result = verify(runner, run)
    assert result.exit_code == 0, result.output
    assert "standings match results.json and standings.csv" in " ".join(result.output.split())


def test_results_written_before_they_named_their_rating_models_still_match(
        runner: CliRunner, run: Path) -> None:
    path = run / "results.json"
    results = json.loads(path.read_text())
    assert results.pop("rating_models") == {"elo": "openskill", "fit_elo": "plackett-luce"}
    path.write_text(json.dumps(results))
    result = verify(runner, run)
    assert result.exit_code == 0, result.output
    results["rating_models"] = {"elo": "openskill", "fit_elo": "bradley-terry"}  # forged
    path.write_text(json.dumps(results))
    assert failed_with(verify(runner, run), run, 1) == [
        "results.json: 'rating_models' differs from what the verified games give"]
