"""`arena report`, `arena view` and the report `arena run` writes, without a browser."""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena import __version__
from arena.cli import main
from tests.report.conftest import FakeBrowsers, play, settings_of


def test_run_writes_the_report_and_no_page_holds_the_salt(finished_run: Path) -> None:
    report = finished_run / "report"
    assert (report / "index.html").is_file() and (report / "viewer.html").is_file()
    assert len(list((report / "data").glob("r*/public.js"))) == 4
    salt = (finished_run / "secret.salt").read_text().strip()
    assert len(salt) >= 16
    for path in report.rglob("*"):
        if path.is_file():
            assert salt not in path.read_text(errors="replace"), path


def test_no_report_writes_none(tmp_path: Path) -> None:
    out = play(tmp_path, "machiavelli", "--no-report")
    assert (out / "results.json").is_file() and not (out / "report").exists()


def test_markdown_is_the_standings_commands_tables(runner: CliRunner,
                                                    finished_run: Path) -> None:
    md = runner.invoke(main, ["report", str(finished_run), "--format", "md"])
    table = runner.invoke(main, ["standings", str(finished_run), "--format", "md"])
    cross = runner.invoke(main, ["standings", str(finished_run), "--format", "md",
                                 "--crosstable"])
    assert md.exit_code == table.exit_code == cross.exit_code == 0, md.output
    assert table.output in md.output and cross.output in md.output
    assert md.output.index("standings") < md.output.index("Crosstable")


def test_a_rebuild_reuses_the_viewer_data_and_gives_the_same_site(
        runner: CliRunner, finished_run: Path, tmp_path: Path) -> None:
    run, out = tmp_path / "run", tmp_path / "site"
    shutil.copytree(finished_run, run)
    shutil.rmtree(run / "report")  # else --out copies the run's report's views
    first = runner.invoke(main, ["report", str(run), "--out", str(out)])
    # four games of three seats: a public view and three seat views each
    assert first.exit_code == 0 and "game views: 4 made now (16 files)" in first.output, \
        first.output
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    again = runner.invoke(main, ["report", str(run), "--out", str(out)])
    assert "game views: 4 reused from an earlier report" in again.output, again.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_missing_replay_is_named_and_the_rest_is_built(runner: CliRunner,
                                                        finished_run: Path,
                                                        tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(finished_run, copy, ignore=shutil.ignore_patterns("report"))
    gone = sorted((copy / "replays").glob("*.jsonl"))[0]
    gone.unlink()
    result = runner.invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert f"no viewer for {gone.stem}: no replay file" in " ".join(result.output.split())
    games = (copy / "report" / "games.html").read_text()
    assert games.count("no replay") == 1 and games.count("view=public") == 3


def test_a_damaged_replay_is_named(runner: CliRunner, finished_run: Path,
                                   tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(finished_run, copy, ignore=shutil.ignore_patterns("report"))
    damaged = sorted((copy / "replays").glob("*.jsonl"))[1]
    lines = damaged.read_text().splitlines()
    step = json.loads(lines[3])
    step["action"] = {"type": "nonsense"}
    lines[3] = json.dumps(step)
    damaged.write_text("\n".join(lines) + "\n")
    result = runner.invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert f"no viewer for {damaged.stem}: decision 3: recorded action " \
           '{"type": "nonsense"} does not apply' in " ".join(result.output.split())  # JSON


def test_bad_arguments_get_one_line(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["report", str(tmp_path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    result = runner.invoke(main, ["view", str(bad), "--no-open"])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: {bad}:1: not a replay line " \
        "(Expecting value: line 1 column 1 (char 0))"


def test_a_replay_nested_too_deeply_gets_one_line(runner: CliRunner, tmp_path: Path) -> None:
    # json's decoder recursed past Python's limit: a RecursionError and its traceback
    nested = tmp_path / "nested.jsonl"
    nested.write_text("[" * 100_000 + "\n")
    result = runner.invoke(main, ["view", str(nested), "--no-open", "--out", str(tmp_path / "v")])
    assert result.exit_code == 1, result.output
    assert result.output == f"Error: {nested}:1: not a replay line (nested too deeply to read)\n"


def test_an_unwritable_out_gets_one_line(runner: CliRunner, finished_run: Path,
                                         tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    result = runner.invoke(main, ["report", str(finished_run), "--out", str(blocker / "r")])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: cannot write the report in {blocker / 'r'}: ")
    assert len(result.output.strip().splitlines()) == 1


def test_view_writes_a_viewer_for_one_replay(runner: CliRunner, finished_run: Path,
                                             tmp_path: Path) -> None:
    replay = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    result = runner.invoke(main, ["view", str(replay), "--out", str(tmp_path / "v"),
                                  "--no-open"])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "v" / "data" / "game").iterdir())
    assert names == ["public.js", "seat0.js", "seat1.js", "seat2.js"]
    assert (tmp_path / "v" / "assets" / "viewer.js").is_file()


def test_view_writes_into_the_current_directory_by_default(runner: CliRunner,
                                                           finished_run: Path,
                                                           tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    replay = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["view", str(replay), "--no-open"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"{replay.stem}-view" / "viewer.html").is_file()
    assert sorted(p.suffix for p in replay.parent.iterdir()) == [".jsonl"] * 4


def small_comparison(runner: CliRunner, out: Path, games: int) -> tuple[dict[str, Any], str]:
    """Compare two built-in bots over `games` games into `out`; return compare.json and
    what the command printed."""
    done = runner.invoke(main, ["compare", "machiavelli", "--out", str(out), "--candidate",
                                "new=builtin:default", "--base", "old=builtin:random",
                                "--elo1", "300", "--max-games", str(games), "-j", "1"])
    assert done.exit_code in (0, 1, 2), done.output
    return json.loads((out / "compare.json").read_text()), done.output


def test_a_comparisons_report_leads_with_its_verdict(runner: CliRunner,
                                                      tmp_path: Path) -> None:
    # it showed the standings of both halves of every deal and no verdict at all
    out = tmp_path / "cmp"
    said, output = small_comparison(runner, out, 6)
    assert said["summary"] in output  # the words the command ended with
    built = runner.invoke(main, ["report", str(out)])
    assert built.exit_code == 0, built.output
    page = (out / "report" / "index.html").read_text()
    verdict = page[page.index('data-testid="verdict"'):page.index('id="standings"')]
    assert html.escape(said["summary"]) in verdict and f"{said['llr']:.2f}" in verdict
    assert 'href="../compare.json"' in verdict and (out / "compare.json").is_file()
    tournament = play(tmp_path, "machiavelli")
    assert 'data-testid="verdict"' not in (tournament / "report" / "index.html").read_text()


def test_a_comparisons_report_names_the_forfeits_its_verdict_counted(runner: CliRunner,
                                                                     tmp_path: Path) -> None:
    # a candidate that crashed in some games had its verdict shown with not a word of it
    out = tmp_path / "cmp"
    said, _ = small_comparison(runner, out, 4)
    assert said["forfeits"] == {}  # built-in bots never forfeit
    said["forfeits"] = {"new": {"games": 2, "forfeits": 1, "reasons": {"crashed": 1},
                                "faults": {}},
                        "old": {"games": 2, "forfeits": 0, "reasons": {},
                                "faults": {"timeout": 2, "illegal_action": 1}},
                        "opp": "not a mapping: left out"}
    (out / "compare.json").write_text(json.dumps(said))
    built = runner.invoke(main, ["report", str(out)])
    assert built.exit_code == 0, built.output
    page = (out / "report" / "index.html").read_text()
    verdict = page[page.index('data-testid="verdict"'):page.index('id="standings"')]
    assert "forfeits of new" in verdict and "1 of its 2 counted games (crashed 1)" in verdict
    assert "faults of new" not in verdict and "forfeits of old" not in verdict
    assert "faults of old" in verdict and \
        "3 in its 2 counted games (timeout 2, illegal_action 1)" in verdict
    assert "of opp" not in verdict


@pytest.mark.parametrize("opens", [True, False])
def test_open_says_where_the_page_is_with_or_without_a_browser(
        runner: CliRunner, finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        fake_browsers: FakeBrowsers, opens: bool) -> None:
    # a headless machine has no browser: webbrowser.open returns False and shows nothing
    monkeypatch.setenv("BROWSER", str(fake_browsers.add("gui", code=0 if opens else 1)))
    out = tmp_path / "site"
    result = runner.invoke(main, ["report", str(finished_run), "--out", str(out), "--open"])
    assert result.exit_code == 0, result.output
    url = (out / "index.html").resolve().as_uri()
    assert fake_browsers.started() == [f"gui {url}"]
    said = "Opened in a web browser: " if opens else "No web browser could be opened here; open "
    assert f"{said}{url}" in result.output.splitlines(), result.output
    replay = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    result = runner.invoke(main, ["view", str(replay), "--out", str(tmp_path / "v")])
    assert result.exit_code == 0, result.output
    url = (tmp_path / "v" / "viewer.html").resolve().as_uri() + "?view=public"
    assert fake_browsers.started()[-1] == f"gui {url}", fake_browsers.started()
    assert f"{said}{url}" in result.output.splitlines(), result.output


@pytest.mark.parametrize("chosen", [None, "lynx", "links %s"])
def test_a_text_browser_is_never_started(
        runner: CliRunner, finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        fake_browsers: FakeBrowsers, chosen: str | None) -> None:
    # with no display the only browsers webbrowser knows are text browsers, and it ran the
    # first of them in the foreground: the terminal was lynx's until the user quit it
    for name in ("www-browser", "links", "elinks", "lynx", "w3m"):
        fake_browsers.add(name)
    if chosen is not None:  # the user's choice, as a name or a command line
        monkeypatch.setenv("BROWSER", chosen)
    out = tmp_path / "site"
    result = runner.invoke(main, ["report", str(finished_run), "--out", str(out), "--open"])
    assert result.exit_code == 0, result.output
    assert fake_browsers.started() == []
    url = (out / "index.html").resolve().as_uri()
    [line] = [line for line in result.output.splitlines() if url in line]
    assert line.startswith("No graphical web browser found here (not opened in ") and \
        line.endswith(f", which would take over this terminal); open {url}"), line
    assert all(name in line for name in ("www-browser", "lynx", "w3m")), line
    replay = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    result = runner.invoke(main, ["view", str(replay), "--out", str(tmp_path / "v")])
    assert result.exit_code == 0, result.output
    assert "No graphical web browser found here" in result.output
    assert fake_browsers.started() == []


def test_a_graphical_browser_after_a_text_one_opens_the_page(
        runner: CliRunner, finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        fake_browsers: FakeBrowsers) -> None:
    fake_browsers.add("lynx")
    monkeypatch.setenv("BROWSER", f"lynx:{fake_browsers.add('gui')}")
    out = tmp_path / "site"
    result = runner.invoke(main, ["report", str(finished_run), "--out", str(out), "--open"])
    assert result.exit_code == 0, result.output
    url = (out / "index.html").resolve().as_uri()
    assert fake_browsers.started() == [f"gui {url}"]
    assert f"Opened in a web browser: {url}" in result.output.splitlines(), result.output


def test_settings_have_one_row_a_name_and_the_whole_time_control(
        finished_run: Path) -> None:
    header = json.loads((sorted((finished_run / "replays").glob("*.jsonl"))[0]
                         ).read_text().splitlines()[0])
    assert header["time"] == {"move_ms": 1000, "bank_ms": 0, "startup_ms": 10000}
    rows = settings_of(finished_run / "report" / "index.html")
    names = [name for name, _ in rows]
    # two rows were called "rules": the tournament rules' version and the game's rules
    assert len(names) == len(set(names)), names
    shown = dict(rows)
    assert shown["tournament rules"] == "version 5 (pairing and standings)"
    assert json.loads(shown["game rules"]) == header["rules"]
    assert shown["time control"] == "1000 ms a move; 10000 ms to start (a bot's hello)"
    assert shown["bots"] == "ann, bob, cat, dan"


def test_a_gauntlets_settings_name_its_challengers(runner: CliRunner, tmp_path: Path) -> None:
    bots = "".join(f"  - {{name: {n}, cmd: 'builtin:random'}}\n" for n in ("ann", "bob", "cat"))
    file = tmp_path / "g.yaml"
    file.write_text("name: g\ngame: machiavelli-rummy\nplayers_per_game: 2\nformat: gauntlet\n"
                    "challengers: [ann]\ngames_per_pairing: 1\nseed: 5\n"
                    "time: {move_ms: 800, bank_ms: 2000, startup_ms: 9000}\nbots:\n" + bots)
    result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    shown = dict(settings_of(tmp_path / "run" / "report" / "index.html"))
    assert shown["format"] == "gauntlet" and shown["challengers"] == "ann"
    assert shown["time control"] == ("800 ms a move + a bank of 2000 ms a game (time over a "
                                     "move's limit); 9000 ms to start (a bot's hello)")


def test_replays_from_before_the_start_up_limit_take_it_from_the_stored_file(
        runner: CliRunner, finished_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    for replay in (run / "replays").glob("*.jsonl"):
        first, rest = replay.read_text().split("\n", 1)
        header = json.loads(first)
        del header["time"]["startup_ms"]  # as the referee wrote them before
        replay.write_text(json.dumps(header) + "\n" + rest)
    result = runner.invoke(main, ["report", str(run)])
    assert result.exit_code == 0, result.output
    shown = dict(settings_of(run / "report" / "index.html"))
    assert shown["time control"] == "1000 ms a move; 10000 ms to start (a bot's hello)"


def _rewrite_headers(run: Path, change: Callable[[int, dict[str, Any]], str | None]) -> None:
    """Give each replay of `run` (in key order, numbered) the header line `change` makes of
    its header (it edits the dict, or returns a whole line to write instead)."""
    for number, replay in enumerate(sorted((run / "replays").glob("*.jsonl"))):
        first, rest = replay.read_text().split("\n", 1)
        header = json.loads(first)
        line = change(number, header)
        replay.write_text((json.dumps(header) if line is None else line) + "\n" + rest)


def test_the_arena_row_names_the_version_that_played_the_games(
        runner: CliRunner, finished_run: Path, tmp_path: Path) -> None:
    # it showed the version building the report, whichever had played the games
    header = json.loads((sorted((finished_run / "replays").glob("*.jsonl"))[0]
                         ).read_text().splitlines()[0])
    assert header["arena"] == __version__
    assert dict(settings_of(finished_run / "report" / "index.html"))["arena"] == __version__
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    _rewrite_headers(run, lambda n, h: h.update(arena="0.0.9"))
    assert runner.invoke(main, ["report", str(run)]).exit_code == 0
    shown = dict(settings_of(run / "report" / "index.html"))
    assert shown["arena"] == f"0.0.9 (report built with {__version__})"

    def mixed(number: int, header: dict[str, Any]) -> None:
        if number < 2:
            del header["arena"]  # as the referee wrote them before
        else:
            header["arena"] = "0.0.9" if number == 2 else __version__

    _rewrite_headers(run, mixed)
    assert runner.invoke(main, ["report", str(run)]).exit_code == 0
    assert dict(settings_of(run / "report" / "index.html"))["arena"] == (
        f"0.0.9 (1 game), {__version__} (1 game); not recorded for 2 games, played before "
        f"arena recorded its version (report built with {__version__})")


def test_an_old_run_says_its_version_was_not_recorded_and_a_broken_replay_is_one_line(
        runner: CliRunner, finished_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    _rewrite_headers(run, lambda n, h: h.pop("arena") and None)
    result = runner.invoke(main, ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert dict(settings_of(run / "report" / "index.html"))["arena"] == (
        "not recorded: the games were played before arena recorded its version (report "
        f"built with {__version__})")
    broken = {0: '{"type": "header", "cut": ', 1: "[" * 100_000}
    _rewrite_headers(run, lambda n, h: broken.get(n))
    result = runner.invoke(main, ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.exception is None
    warnings = [line for line in result.output.splitlines() if line.startswith("warning")]
    assert len(warnings) == 2 and all(w.startswith("warning: no viewer for r") for w in warnings)
    assert dict(settings_of(run / "report" / "index.html"))["arena"] == (
        "not recorded for 2 games, played before arena recorded its version; not known for 2 "
        f"games without a readable replay (report built with {__version__})")
