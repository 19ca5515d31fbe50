"""The report and the replay viewer in a real browser: Debian's chromium, headless, driven
by Playwright (pointed at the system browser; `make browser` installs it). Screenshots go
to build/test-artifacts/. A missing browser skips, and fails when CI=true."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.referee.replay import read_replay
from arena.tournament.outputs import cross_cell
from tests.report.test_views import observations

ARTIFACTS = Path(__file__).resolve().parents[2] / "build" / "test-artifacts"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def standings_json(run: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["standings", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def test_report_shows_the_standings_crosstable_and_plot(page: Any, finished_run: Path) -> None:
    expected = standings_json(finished_run)
    page.goto((finished_run / "report" / "index.html").as_uri())
    rows = page.locator("table.standings tbody tr")
    shown = [{"rank": int(r.locator(".rank").inner_text()), "bot": r.get_attribute("data-bot"),
              "games": int(r.locator(".games").inner_text()),
              "points": float(r.locator(".points").inner_text()),
              "fit_elo": float(r.locator(".rating").get_attribute("data-value"))}
             for r in rows.all()]
    assert shown == [{k: row[k] for k in ("rank", "bot", "games", "points", "fit_elo")}
                     for row in expected["standings"]]
    cross = expected["crosstable"]
    for row in page.locator("table.crosstable tbody tr").all():
        bot = row.get_attribute("data-bot")
        for cell in row.locator("td.cell").all():
            other = cell.get_attribute("data-opponent")
            record = cross.get(bot, {}).get(other)
            want = "x" if other == bot else cross_cell(tuple(record) if record else None)
            assert cell.inner_text() == want, (bot, other)
    plotted = page.locator("[data-testid=ratings-plot] desc.value").evaluate_all(
        "els => els.map(e => e.textContent)")
    assert sorted(map(float, plotted)) == sorted(r["fit_elo"] for r in expected["standings"])
    shot(page, f"report-{finished_run.parent.name}")


def test_game_list_filters_by_bot(page: Any, finished_run: Path) -> None:
    page.goto((finished_run / "report" / "games.html").as_uri())
    assert page.locator("table.games tbody tr:visible").count() == 4
    page.select_option("select[name=bot]", "ann")
    games = json.loads((finished_run / "results.json").read_text())["games"]
    ann = sum(1 for g in games if any(s["bot"] == "ann" for s in g["seats"]))
    assert 0 < ann < 4
    assert page.locator("table.games tbody tr:visible").count() == ann
    assert page.locator("#shown").inner_text() == f"{ann} of 4 games"


def seats_shown(page: Any) -> list[dict[str, Any]]:
    """Per seat box on the board: gold, hand size, city and hand as the page shows them."""
    out = []
    for box in page.locator("#board .seat").all():
        gold = box.locator(".gold")
        out.append({
            "gold": int(gold.inner_text()) if gold.count() else None,
            "hand_size": int(box.locator(".hand-size").inner_text()),
            "city": box.locator("ul.city li").evaluate_all("els => els.map(e => e.dataset.id)"),
            "hand": box.locator(".hand [data-id], .hand [data-card]").evaluate_all(
                "els => els.map(e => e.dataset.id || e.dataset.card)"),
        })
    return out


def expected_seats(obs: dict[str, Any], seat: int | None) -> list[dict[str, Any]]:
    out = []
    for s, size in enumerate(obs["hand_sizes"]):
        out.append({"gold": obs["gold"][s] if "gold" in obs else None, "hand_size": size,
                    "city": obs["cities"][s] if "cities" in obs else [],
                    "hand": obs["hand"] if s == seat else []})
    return out


@pytest.mark.parametrize("view", ["public", "seat1"])
def test_viewer_steps_20_events_and_shows_the_resimulated_state(
        page: Any, finished_run: Path, view: str) -> None:
    replay_file = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    replay = read_replay(replay_file)
    seat = None if view == "public" else int(view.removeprefix("seat"))
    page.goto((finished_run / "report" / "viewer.html").as_uri()
              + f"?game={replay_file.stem}&view={view}")
    page.wait_for_selector("#board .seat")
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    for _ in range(10):
        page.click("#next")
    assert page.locator("#position").inner_text().startswith("step 20 / ")
    obs = observations(replay, 1)[20]
    assert seats_shown(page) == expected_seats(obs, seat)
    if "stock" in obs:
        assert int(page.locator(".stock").inner_text()) == obs["stock"]
        melds = [m.locator(".card").evaluate_all("els => els.map(e => e.dataset.card)")
                 for m in page.locator("[data-testid=table] .meld").all()]
        assert melds == obs["table"]
    if seat is None:
        assert page.locator("#board .hand").count() == 0
    shot(page, f"viewer-{finished_run.parent.name}-{view}")


def test_viewer_switches_views_and_jumps_to_a_round(page: Any, finished_run: Path) -> None:
    replay_file = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    page.goto((finished_run / "report" / "viewer.html").as_uri() + f"?game={replay_file.stem}")
    page.wait_for_selector("#board .seat")
    page.keyboard.press("End")
    last = page.locator("#position").inner_text()
    assert page.locator("[data-testid=end]").count() == 1
    page.select_option("#view", "seat0")
    page.wait_for_selector("#board .seat.own")
    assert page.locator("#position").inner_text() == last
    options = page.locator("#round option").all()
    assert len(options) >= 2
    page.select_option("#round", options[1].get_attribute("value"))
    assert page.locator("#position").inner_text().startswith(
        f"step {options[1].get_attribute('value')} / ")
    other = sorted((finished_run / "replays").glob("*.jsonl"))[1].stem
    assert page.locator("#game option").count() == 4
    page.select_option("#game", other)
    page.wait_for_url(f"**game={other}**")
    page.wait_for_selector("#board .seat.own")
    assert page.locator("#position").inner_text().startswith("step 0 / ")


def step_shown(page: Any) -> int:
    return int(page.locator("#position").inner_text().split()[1])


def test_viewer_plays_pauses_and_pages_through_rounds(page: Any, finished_run: Path) -> None:
    replay_file = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    page.goto((finished_run / "report" / "viewer.html").as_uri() + f"?game={replay_file.stem}")
    page.wait_for_selector("#board .seat")
    page.keyboard.press(" ")
    assert page.locator("#play").inner_text() == "pause"
    page.wait_for_function("parseInt(document.getElementById('position').textContent"
                           ".split(' ')[1], 10) >= 2")
    page.click("#play")
    assert page.locator("#play").inner_text() == "play"
    page.keyboard.press("Home")
    starts = [int(v) for v in page.locator("#round option").evaluate_all(
        "els => els.map(e => e.value)")]
    page.keyboard.press("PageDown")
    assert step_shown(page) == starts[1]
    page.keyboard.press("PageDown")
    page.keyboard.press("PageUp")
    assert step_shown(page) == starts[1]


def test_a_bots_page_sums_to_its_standings_row(page: Any, finished_run: Path) -> None:
    row = standings_json(finished_run)["standings"][0]
    page.goto((finished_run / "report" / "index.html").as_uri())
    page.click(f"table.standings tr[data-bot='{row['bot']}'] a")
    page.wait_for_selector("[data-testid=seats]")
    cells = [[int(c) if "." not in c else float(c) for c in r.locator("td").all_inner_texts()]
             for r in page.locator("[data-testid=seats] tbody tr").all()]
    games = sum(c[1] for c in cells)
    placings = sum(p * n for c in cells for p, n in enumerate(c[2:-1], start=1))
    assert games == row["games"]
    assert round(placings / games, 4) == row["mean_placing"]
    assert page.locator("table.games tbody tr").count() == games
