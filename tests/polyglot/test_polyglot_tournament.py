"""tournaments/polyglot.yaml: a bot per language at one machiavelli table, played to the end
through `arena run`, with no fault, timeout, crash or forfeit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.polyglot.starters import ROOT, STARTERS, make, require

pytestmark = pytest.mark.toolchain

EXPECTED = {"python", "javascript", "c", "rust", "go", "java", "perl"}


def test_polyglot_tournament_completes_with_every_bot_playing(runner: CliRunner,
                                                              tmp_path: Path) -> None:
    for starter in STARTERS.values():
        require(starter)
    make("bots")
    out = tmp_path / "out"
    result = runner.invoke(main, ["run", str(ROOT / "tournaments" / "polyglot.yaml"),
                                  "--out", str(out)])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert {row["bot"] for row in results["standings"]} == EXPECTED
    assert len(results["games"]) == 2
    for game in results["games"]:
        assert game["termination"] == "completed", game
        assert {seat["bot"] for seat in game["seats"]} == EXPECTED
    for row in results["standings"]:
        assert row["games"] == 2, row
        assert (row["faults"], row["timeouts"], row["forfeits"]) == (0, 0, 0), row
