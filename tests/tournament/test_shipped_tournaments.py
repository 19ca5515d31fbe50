"""The tournament files we ship run to the end through `arena run`, with every game
completed and no fault, timeout or crash (`polyglot.yaml` is run in tests/polyglot)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_file(runner: CliRunner, name: str, out: Path) -> dict[str, object]:
    result = runner.invoke(main, ["run", str(ROOT / "tournaments" / name), "--out", str(out)])
    assert result.exit_code == 0, result.output
    results: dict[str, object] = json.loads((out / "results.json").read_text())
    return results


@pytest.mark.parametrize(("name", "games", "winner"), [
    ("demo.yaml", 20, "greedy"),
    ("rummy-duel.yaml", 36, "rummy-solver"),
])
def test_a_shipped_tournament_runs_to_the_end(runner: CliRunner, tmp_path: Path, name: str,
                                              games: int, winner: str) -> None:
    results = run_file(runner, name, tmp_path / "out")
    played = results["games"]
    assert isinstance(played, list) and len(played) == games
    assert {game["termination"] for game in played} <= {"completed", "blocked"}
    standings = results["standings"]
    assert isinstance(standings, list)
    for row in standings:
        assert (row["faults"], row["timeouts"], row["forfeits"]) == (0, 0, 0), row
    # the strong sample bot clearly beats the random ones
    assert str(standings[0]["bot"]).startswith(winner), standings[0]
