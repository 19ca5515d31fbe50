"""The report of a ladder: its table with every version, the rating history plot with a new
version marked, and `arena ladder run` refreshing the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main


def arena(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs of four built-in bots at tables of three, ann updated between them."""
    directory = tmp_path_factory.mktemp("ladder") / "l"
    arena("ladder", "init", str(directory), "--game", "machiavelli", "--players", "3")
    for name in ("ann", "bob", "cat", "dan"):
        arena("ladder", "add", str(directory), name, "--cmd", "builtin:random")
    arena("ladder", "run", str(directory), "-n", "6", "--no-report")
    assert not (directory / "report").exists()
    arena("ladder", "add", str(directory), "ann", "--cmd", "builtin:random", "--version", "2")
    out = arena("ladder", "run", str(directory), "-n", "6")
    # this run's six games got their views from the workers that played them; the report
    # made those of the first run's six (4 views each), stored with --no-report
    assert "game views: 6 made now (24 files), 6 made by the workers that played them" in \
        " ".join(out.split()), out
    return directory


def test_ladder_run_refreshes_the_report(ladder: Path) -> None:
    index = (ladder / "report" / "index.html").read_text()
    assert 'data-testid="ladder"' in index and 'data-testid="history-plot"' in index
    # the table says what its rating is, as the tournament's does
    note = index[index.index('data-testid="ladder-rating-note"'):]
    assert " ".join(note[:note.index("</p>")].split()).startswith(
        'data-testid="ladder-rating-note">Rating: Plackett-Luce fit of whole placings')
    assert len(list((ladder / "report" / "data").glob("*/public.js"))) == 12


def test_the_ladder_table_and_history_match_the_ladder_commands(ladder: Path,
                                                               page: Any) -> None:
    table = json.loads(arena("ladder", "standings", str(ladder), "--all", "--format", "json"))
    history = json.loads(arena("ladder", "history", str(ladder), "--format", "json"))
    page.goto((ladder / "report" / "index.html").as_uri())
    rows = page.locator("[data-testid=ladder] tbody tr").all()
    shown = [(r.get_attribute("data-bot"), r.get_attribute("data-version"),
              r.locator(".status").inner_text(), float(r.locator(".rating").get_attribute(
                  "data-value"))) for r in rows]
    assert shown == [(r["bot"], r["version"], r["status"], r["rating"])
                     for r in table["standings"]]
    assert [s[2] for s in shown].count("superseded") == 1
    values = [float(v) for v in page.locator("[data-testid=history-plot] desc.value")
              .evaluate_all("els => els.map(d => d.textContent)")]
    assert sorted(values[:-1]) == sorted(p["rating"] for p in history["history"])
    # the last series marks ann's new version where its line starts
    assert values[-1:] == [p["rating"] for p in history["history"] if p["version"] == "2"][:1]
    page.locator("[data-testid=ladder] tbody tr", has_text="superseded").locator("a").click()
    page.wait_for_url("**/bots/*.html")
    page.wait_for_selector("[data-testid=history-plot]")
    assert "ann" in page.locator("h1").inner_text()
