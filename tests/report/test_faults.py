"""Faults and forfeits in the viewer: marked where they happened, their details only in the
faulty seat's own view (an illegal action can name a card the others must not learn)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games import REGISTRY
from arena.referee.replay import read_replay
from arena.referee.review import engine_for
from arena.report.views import build_views

MISBEHAVE = Path(__file__).resolve().parents[1] / "referee" / "bots" / "misbehave.py"


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game where seat 0 answers illegal actions until it forfeits (max_faults)."""
    folder = tmp_path_factory.mktemp("faulty")
    replay = folder / "game.jsonl"
    env = {"PIDFILE": str(folder / "pids")}
    result = CliRunner(env=env).invoke(main, [
        "play", "machiavelli", "--sandbox", "none", "--seed", "7", "--replay", str(replay),
        "--bot", f"bad={sys.executable} {MISBEHAVE} illegal", "--bot", "ok=builtin:random"])
    assert result.exit_code == 3, result.output
    return replay


def test_faults_and_the_forfeit_are_marked_in_every_view(faulty: Path) -> None:
    replay = read_replay(faulty)
    views = build_views(replay, engine_for(replay, REGISTRY))
    recorded = [s for s in replay.steps if s["fault"]]
    assert len(recorded) == 3
    for name, view in views.items():
        frames: list[dict[str, Any]] = view["frames"]
        faults = {f["n"]: f["fault"] for f in frames if "fault" in f}
        assert sorted(faults) == [s["n"] for s in recorded], name
        for fault in faults.values():
            assert fault["kind"] == "illegal_action" and fault["seat"] == 0
            assert ("detail" in fault) == (name == "seat0"), name
        forfeits = [(f["n"], f["forfeits"]) for f in frames if "forfeits" in f]
        assert forfeits == [(replay.forfeits[0]["decision"],
                             [{"seat": 0, "reason": "max_faults"}])], name


def test_the_viewer_marks_a_fault_at_its_step(faulty: Path, tmp_path: Path,
                                              page: Any) -> None:
    result = CliRunner().invoke(main, ["view", str(faulty), "--out", str(tmp_path / "v"),
                                       "--no-open"])
    assert result.exit_code == 0, result.output
    replay = read_replay(faulty)
    first = next(s for s in replay.steps if s["fault"])
    detail = str(first["fault"]["detail"])
    page.goto((tmp_path / "v" / "viewer.html").as_uri() + f"?view=public&step={first['n']}")
    page.wait_for_selector("[data-testid=fault]")
    marked = page.locator("[data-testid=fault]").inner_text()
    assert "illegal_action" in marked and detail not in marked
    page.select_option("#view", "seat0")
    page.wait_for_selector("#board .seat.own")
    assert detail in page.locator("[data-testid=fault]").inner_text()
    page.keyboard.press("End")
    page.select_option("#round", index=0)
    forfeit_at = int(replay.forfeits[0]["decision"])
    for _ in range(forfeit_at):
        page.keyboard.press("ArrowRight")
    assert "forfeits: max_faults" in page.locator("[data-testid=forfeit]").inner_text()


def test_a_bots_page_lists_its_faults_linked_to_the_viewer(tmp_path: Path, page: Any) -> None:
    bad = f"{sys.executable} {MISBEHAVE} illegal"
    file = tmp_path / "t.yaml"
    file.write_text(
        "name: faults\ngame: machiavelli\nplayers_per_game: 2\nsandbox: none\nbots:\n"
        f"  - {{name: bad, cmd: '{bad}', env: {{PIDFILE: '{tmp_path / 'pids'}'}}}}\n"
        "  - {name: ok, cmd: 'builtin:random'}\n")
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", str(file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    [bot_page] = (out / "report" / "bots").glob("*-bad.html")
    page.goto(bot_page.as_uri())
    rows = page.locator("[data-testid=faults] tbody tr")
    kinds = [r.locator("td").nth(2).inner_text() for r in rows.all()]
    assert kinds == ["illegal_action"] * 3 + ["forfeit"]
    assert rows.nth(3).locator("td").nth(3).inner_text() == "max_faults"
    decision = int(rows.nth(0).locator("td").nth(1).inner_text())
    detail = rows.nth(0).locator("td").nth(3).inner_text()
    rows.nth(0).locator("a").click()
    page.wait_for_selector("[data-testid=fault]")
    assert page.locator("#position").inner_text().startswith(f"step {decision} / ")
    assert detail in page.locator("[data-testid=fault]").inner_text()
