"""The game lists at any size: every game in one compact data file, pages holding only their
first page of rows, and games.js drawing any page with the filters applied over all games
(in a real browser: Debian's chromium through Playwright, as test_browser.py)."""

from __future__ import annotations

import itertools
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.core.record import Fault, FaultKind, ForfeitReason
from arena.report.data import GameEntry, RunData, load_run
from arena.report.gamelist import LIST_FILE, PAGE_ROWS
from arena.report.site import build_report
from arena.report.viewdata import DATA
from tests.report.conftest import play

GAMES = 250
"""Three pages of a hundred rows, the last one of fifty."""
FAULTY, FORFEITED = 241, 245
"""The only game with a fault, and the only one with a forfeit: both on the last page."""


def synthetic(run: RunData) -> RunData:
    """`run`'s four games played again and again, as a long run's loader returns them: game
    i in round i // 4 + 1 (no replays: the lists say "no replay")."""
    games: list[GameEntry] = []
    for i in range(GAMES):
        base = run.games[i % len(run.games)]
        round_, table = i // 4 + 1, i % 4
        seats = base.seats
        if i == FORFEITED:
            seats = (replace(seats[0], forfeit=ForfeitReason.CRASHED), *seats[1:])
        faults = (Fault(1, FaultKind.TIMEOUT, "late", 3),) if i == FAULTY else ()
        games.append(replace(base, key=f"r{round_}-t{table}-g0", round=round_, table=table,
                             seats=seats, faults=faults, replay=None))
    return replace(run, games=tuple(games))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real four-game run of machiavelli (replays and viewer data)."""
    return play(tmp_path_factory.mktemp("small"), "machiavelli")


@pytest.fixture(scope="module")
def big(small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of 250 games made from the small run's four."""
    out = tmp_path_factory.mktemp("big") / "report"
    build_report(synthetic(load_run(small)), out)
    return out


def list_data(report: Path) -> dict[str, Any]:
    text = (report / DATA / LIST_FILE).read_text()
    found = re.fullmatch(r"arenaList\(JSON\.parse\('(.*)'\)\);\n", text, re.S)
    assert found is not None
    # the JavaScript string's two escapes undone, in the order they were made
    data: dict[str, Any] = json.loads(found[1].replace("\\'", "'").replace("\\\\", "\\"))
    return data


def static_keys(page: Path) -> list[str]:
    """The keys of the game list's rows as the page holds them (not the faults table's)."""
    games = page.read_text().split('data-testid="games"')[1]
    return re.findall(r'<tr>\s*<td class="l">(r\d+-t\d+-g\d+)</td>', games)


def test_the_data_file_holds_every_game_in_a_few_dozen_bytes(big: Path, small: Path) -> None:
    data = list_data(big)
    run = synthetic(load_run(small))
    assert len(data["rows"]) == GAMES
    bots = [name for name, _ in data["bots"]]
    for row, game in zip(data["rows"], run.games, strict=True):
        assert f"r{row[0]}-t{row[1]}-g{row[2]}" == game.key
        assert data["terminations"][row[3]] == game.termination
        assert row[4] == len(game.faults) and row[5] == 0
        seats = row[6:] if not isinstance(row[-1], list) else row[6:-1]
        assert [(bots[b], p, s) for b, p, s in zip(*[iter(seats)] * 3, strict=True)] == \
            [(s.bot, s.placing, s.score) for s in game.seats]
    assert data["rows"][FORFEITED][-1] == [0, data["forfeits"].index("crashed")]
    assert all(not isinstance(r[-1], list) for i, r in enumerate(data["rows"])
               if i != FORFEITED)
    assert (big / DATA / LIST_FILE).stat().st_size / GAMES < 60


def test_pages_hold_only_their_first_page_of_rows(big: Path, small: Path) -> None:
    run = synthetic(load_run(small))
    assert static_keys(big / "games.html") == [g.key for g in run.games[:PAGE_ROWS]]
    html = (big / "games.html").read_text()
    assert f"The first {PAGE_ROWS} of {GAMES} games" in html
    for row in run.table.rows:
        page = next((big / "bots").glob(f"*-{row.bot}.html"))
        mine = [g.key for g in run.games if g.seat_of(row.bot) is not None]
        assert len(mine) > PAGE_ROWS
        assert static_keys(page) == mine[:PAGE_ROWS]
        assert f'data-bot="{row.bot}"' in page.read_text()


def test_a_small_run_keeps_every_row_in_its_pages(small: Path) -> None:
    games = load_run(small).games
    assert static_keys(small / "report" / "games.html") == [g.key for g in games]
    assert "need JavaScript" not in (small / "report" / "games.html").read_text()


def keys_shown(page: Any) -> list[str]:
    keys: list[str] = page.locator("table.games tbody tr td:first-child").all_inner_texts()
    return keys


def rows_shown(page: Any) -> list[list[Any]]:
    """Each row's cells: text, class and links, as a person and a script would read them."""
    rows: list[list[Any]] = page.locator("table.games tbody tr").evaluate_all(
        """rows => rows.map(r => Array.from(r.cells).map(c => [
             c.className, c.textContent.replace(/\\s+/g, ' ').trim(),
             Array.from(c.querySelectorAll('a')).map(a => [a.getAttribute('href'), a.title]),
             Array.from(c.querySelectorAll('em, span')).map(e => e.className)]))""")
    return rows


def test_the_script_draws_the_rows_the_page_holds(browser: Any, small: Path,
                                                  tmp_path: Path) -> None:
    """Page 1 drawn from the data equals the rows written as HTML, viewer links included,
    on games.html and on a bot page (whose links lead up a folder)."""
    out = tmp_path / "report"
    build_report(load_run(small), out, page_rows=2)
    for address in [out / "games.html", next((out / "bots").glob("*.html"))]:
        without = browser.new_page(java_script_enabled=False)
        without.goto(address.as_uri())
        written = rows_shown(without)
        without.close()
        with_script = browser.new_page()
        with_script.goto(address.as_uri())
        with_script.wait_for_selector("#pager:not([hidden])")
        with_script.click("#pager [data-go=next]")  # page 1 drawn again by the script
        with_script.click("#pager [data-go=prev]")
        assert rows_shown(with_script) == written and len(written) == 2
        assert any(link for row in written for link in row[6][2])
        with_script.close()


def test_any_page_is_drawn_and_filters_apply_over_every_page(page: Any, big: Path) -> None:
    page.goto((big / "games.html").as_uri())
    page.wait_for_selector("#pager:not([hidden])")
    assert keys_shown(page) == [f"r{i // 4 + 1}-t{i % 4}-g0" for i in range(PAGE_ROWS)]
    assert page.locator("#pages").inner_text() == "3"
    page.click("[data-go=last]")
    last = [f"r{i // 4 + 1}-t{i % 4}-g0" for i in range(2 * PAGE_ROWS, GAMES)]
    assert page.locator(".range").all_inner_texts() == ["games 201\u2013250"] * 2
    assert keys_shown(page) == last
    assert page.locator("em.forfeit").all_inner_texts() == ["forfeit: crashed"]
    page.click("#pager [data-go=prev]")
    assert keys_shown(page)[0] == "r26-t0-g0"
    # each filter finds games that only the last page holds
    page.check("input[name=faults]")
    assert keys_shown(page) == [last[FAULTY - 2 * PAGE_ROWS]]
    assert page.locator("#shown").inner_text() == f"1 of {GAMES} games"
    page.uncheck("input[name=faults]")
    page.select_option("select[name=round]", "62")
    assert keys_shown(page) == [f"r62-t{t}-g0" for t in range(4)]
    assert page.url.endswith("games.html?round=62")  # kept in the address: reloaded, ...
    page.reload()
    assert keys_shown(page) == [f"r62-t{t}-g0" for t in range(4)]  # ... the same list
    page.select_option("select[name=round]", "")
    page.fill("input[name=game]", "r61-t2")
    assert keys_shown(page) == ["r61-t2-g0"]
    page.fill("input[name=game]", "")
    page.select_option("select[name=order]", "new")
    assert keys_shown(page) == [f"r{i // 4 + 1}-t{i % 4}-g0"
                                for i in range(GAMES - 1, GAMES - 1 - PAGE_ROWS, -1)]


def test_a_bots_page_lists_exactly_its_games(page: Any, big: Path, small: Path) -> None:
    run = synthetic(load_run(small))
    bot = run.table.rows[1].bot
    other = run.table.rows[2].bot
    page.goto(next((big / "bots").glob(f"*-{bot}.html")).as_uri())
    page.wait_for_selector("#pager:not([hidden])")
    mine = [g.key for g in run.games if g.seat_of(bot) is not None]
    assert page.locator("#shown").inner_text() == f"{len(mine)} of {len(mine)} games"
    seen = keys_shown(page)
    while page.locator("#page").input_value() != page.locator("#pages").inner_text():
        page.click("#pager-bottom [data-go=next]")
        seen += keys_shown(page)
    assert seen == mine
    page.select_option("select[name=bot]", other)
    both = [g.key for g in run.games if g.seat_of(bot) and g.seat_of(other)]
    assert 0 < len(both) < len(mine)
    assert keys_shown(page) == both[:PAGE_ROWS]


def test_the_viewer_offers_the_games_near_the_one_shown(page: Any, small: Path,
                                                       tmp_path: Path) -> None:
    """With every game's views at hand (the small run's, copied under the long run's keys),
    the viewer's game selector holds the hundred games either side of the one shown."""
    run = synthetic(load_run(small))
    made = small / "report" / DATA
    out = tmp_path / "report"
    games = []
    for game, base in zip(run.games, itertools.cycle(load_run(small).games), strict=False):
        shutil.copytree(made / base.key, out / DATA / game.key)
        games.append(replace(game, replay=base.replay))
    build_report(replace(run, games=tuple(games)), out)
    shown = games[150]
    page.goto((out / "viewer.html").as_uri() + f"?game={shown.key}&view=public")
    page.wait_for_selector("#board .seat")
    offered = page.locator("#game option").evaluate_all("els => els.map(e => e.value)")
    assert offered == [g.key for g in games[50:251]]
    assert page.locator("#game").input_value() == shown.key
    label = " | ".join(s.bot for s in shown.seats)
    assert page.locator("#game option:checked").inner_text() == f"{shown.key}: {label}"


def test_a_bots_page_lists_its_first_faults_and_leads_to_the_rest(
        page: Any, small: Path, tmp_path: Path) -> None:
    run = synthetic(load_run(small))
    bot = run.games[0].seats[0].bot
    faulty = []
    for game in run.games:
        seat = game.seat_of(bot)
        if seat is not None:
            game = replace(game, faults=(Fault(seat.seat, FaultKind.TIMEOUT, "late", 1),))
        faulty.append(game)
    out = tmp_path / "report"
    build_report(replace(run, games=tuple(faulty)), out, page_rows=20)
    mine = [g.key for g in faulty if g.seat_of(bot) is not None]
    page.goto(next((out / "bots").glob(f"*-{bot}.html")).as_uri())
    listed = page.locator("[data-testid=faults] tbody tr td:first-child").all_inner_texts()
    assert listed == mine[:20]
    assert page.locator("[data-testid=more-faults]").inner_text() == \
        f"The first 20 of {len(mine)} faults and forfeits: the games with faults list them all."
    page.click("[data-testid=more-faults] a")
    page.wait_for_url("**faults=1**")
    assert page.locator("input[name=faults]").is_checked()
    assert page.locator("#shown").inner_text() == f"{len(mine)} of {len(mine)} games"


def test_without_its_data_a_list_keeps_the_rows_it_holds_and_says_so(
        browser: Any, small: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    shutil.copytree(small / "report", out)
    (out / DATA / LIST_FILE).unlink()
    page = browser.new_page()
    page.goto((out / "games.html").as_uri())
    assert page.locator("#list-missing").is_visible()
    assert keys_shown(page) == [g.key for g in load_run(small).games]
    assert page.locator("#pager").is_hidden()
    page.close()
