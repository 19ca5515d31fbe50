"""`arena run --dry-run`, `arena standings` and errors through the command line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.runner import Runner
from tests.tournament.fakes import FakeReferee

ROOT = Path(__file__).resolve().parents[2]
SMALL = """\
name: small
game: machiavelli
players_per_game: 4
games_per_pairing: 4
bots:
""" + "".join(f"  - {{name: b{i}, cmd: 'builtin:random'}}\n" for i in range(5))


def test_dry_run_prints_the_schedule_and_count(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    result = runner.invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "round 1" in result.output and "table 0 game 3:" in result.output
    assert result.output.strip().endswith("small: round-robin, 5 rounds, 20 games")
    assert not (tmp_path / "runs").exists()


def test_shipped_tournaments_load(runner: CliRunner) -> None:
    for name in ("demo.yaml", "swiss-club-night.yaml"):
        result = runner.invoke(main, ["run", str(ROOT / "tournaments" / name), "--dry-run"])
        assert result.exit_code == 0, result.output
    assert len(load_config(ROOT / "tournaments" / "swiss-club-night.yaml").bots) >= 8


def test_yaml_problems_exit_1_with_lines(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL.replace("games_per_pairing: 4", "games_per_pairng: 4\nformat: x"))
    result = runner.invoke(main, ["run", str(file)])
    assert result.exit_code == 1
    assert f"{file}:4: unknown key 'games_per_pairng'" in result.output
    assert f"{file}:5: 'format': 'x' is not valid" in result.output


def test_missing_bot_command_is_reported_before_any_game(runner: CliRunner,
                                                        tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL + "  - {name: gone, cmd: '{python} nowhere.py'}\n")
    result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "t.yaml:11: bot 'gone': file 'nowhere.py' not found" in result.output
    assert not (tmp_path / "o").exists()


def test_standings_in_every_format(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    as_json = runner.invoke(main, ["standings", str(out), "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    assert data["games"] == 20 and [r["rank"] for r in data["standings"]] == [1, 2, 3, 4, 5]
    assert data["standings"] == json.loads((out / "results.json").read_text())["standings"]
    as_csv = runner.invoke(main, ["standings", str(out), "--format", "csv"])
    assert as_csv.output == (out / "standings.csv").read_text()
    assert len(list(csv.DictReader(io.StringIO(as_csv.output)))) == 5
    table = runner.invoke(main, ["standings", str(out)])
    assert table.exit_code == 0 and "b0" in table.output and "20 games" in table.output
    missing = runner.invoke(main, ["standings", str(tmp_path)])
    assert missing.exit_code == 1 and "no results database" in missing.output
