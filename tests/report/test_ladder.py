"""The report of a ladder: its table with every version, the rating history plot with a new
version marked, and `arena ladder run` refreshing the report."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.report.conftest import settings_of


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


def test_a_ladders_time_control_is_its_newest_games_and_it_says_when_others_were_played(
        tmp_path: Path) -> None:
    # it showed the time control of the ladder's oldest replay, whatever it played now
    directory = tmp_path / "l"
    arena("ladder", "init", str(directory), "--game", "machiavelli-rummy", "--players", "2")
    for name in ("ann", "bob", "cat"):
        arena("ladder", "add", str(directory), name, "--cmd", "builtin:random")
    file = directory / "ladder.yaml"
    first = file.read_text()
    assert "  move_ms: 1000\n" in first and "  bank_ms: 5000\n" in first
    arena("ladder", "run", str(directory), "-n", "3", "--no-report")
    file.write_text(first.replace("  move_ms: 1000\n", "  move_ms: 700\n"))
    arena("ladder", "run", str(directory), "-n", "2")
    shown = dict(settings_of(directory / "report" / "index.html"))
    bank = "a bank of 5000 ms a game (time over a move's limit); 10000 ms to start (a bot's hello)"
    day = r"\d{4}-\d{2}-\d{2}"
    assert re.fullmatch(f"700 ms a move \\+ {re.escape(bank)} \\(the newest 2 games, {day}\\)",
                        shown["time control"]), shown["time control"]
    assert re.fullmatch(f"1000 ms a move \\+ {re.escape(bank)} \\(3 games, {day}\\)",
                        shown["earlier time controls"]), shown["earlier time controls"]
    assert "next run's time control" not in shown
    # an edit not yet played: the next run's, beside what the newest games were played under
    file.write_text(first.replace("  move_ms: 1000\n", "  move_ms: 400\n"))
    arena("report", str(directory))
    shown = dict(settings_of(directory / "report" / "index.html"))
    assert shown["time control"].startswith("700 ms a move")
    assert shown["next run's time control"] == (
        f"400 ms a move + {bank} (as the ladder's file states it since its newest games)")
