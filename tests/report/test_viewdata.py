"""The viewer's data made as each game is stored, reused while its replay is unchanged."""

from __future__ import annotations

import gc
import io
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from arena.cli import main
from arena.cli import report as cli_report
from arena.report import viewdata, views
from arena.report.data import load_run
from arena.report.viewdata import (
    DATA,
    EARLIER,
    REPORT,
    STAMP,
    WORKER,
    ViewsHook,
    ensure_views,
    is_current,
    maker,
    unpack,
)
from arena.tournament.config import load_config
from arena.tournament.runner import Progress, Runner
from tests.report.conftest import tournament


def test_a_games_views_exist_once_it_is_stored(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(tournament("machiavelli"))
    out, report = tmp_path / "run", tmp_path / "run" / "report"
    runner = Runner(load_config(file), out, concurrency=2)
    runner.after_store = ViewsHook(report)
    seen: list[str] = []
    late: list[str] = []

    def check(progress: Progress) -> None:
        # the parent hears of a game after its worker made its views, never before
        for game in runner.games:
            key = str(game.key)
            seen.append(key)
            if not is_current(report / DATA / key, out / "replays" / f"{key}.jsonl"):
                late.append(key)

    runner.on_progress = check
    runner.run()
    assert len(set(seen)) == 4 and late == []


def test_the_report_at_the_end_of_a_run_makes_no_views(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(tournament("machiavelli-rummy"))
    result = CliRunner().invoke(main, ["run", str(file), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    # made by the workers as they played, which the report counted as "reused"
    assert "game views: 4 made by the workers that played them" in " ".join(
        result.output.split()), result.output
    assert "report: viewer data" not in result.output
    again = CliRunner().invoke(main, ["report", str(tmp_path / "run")])
    assert "game views: 4 made by the workers that played them" in " ".join(
        again.output.split()), again.output


def test_a_replay_changed_after_its_views_gets_them_made_again(finished_run: Path,
                                                               tmp_path: Path) -> None:
    first, second = sorted((finished_run / "replays").glob("*.jsonl"))[:2]
    replay, folder = tmp_path / "game.jsonl", tmp_path / "views"
    shutil.copyfile(first, replay)
    assert ensure_views(replay, folder) == 4
    assert ensure_views(replay, folder) == 0  # unchanged: reused
    shutil.copyfile(second, replay)  # same size class, maybe even the same mtime
    assert not is_current(folder, replay)
    assert ensure_views(replay, folder) == 4
    made = unpack((folder / "seat1.js").read_text())
    expected = unpack((finished_run / "report" / DATA / second.stem / "seat1.js").read_text())
    assert made == expected


def test_views_cut_off_before_their_stamp_are_made_again(finished_run: Path,
                                                         tmp_path: Path) -> None:
    replay = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    folder = tmp_path / "views"
    ensure_views(replay, folder)
    (folder / STAMP).unlink()  # as if the worker died before it finished the folder
    (folder / "seat0.js").write_text("arenaView(")
    assert ensure_views(replay, folder) == 4
    assert unpack((folder / "seat0.js").read_text())["seat"] == 0


def test_views_are_made_with_the_collector_paused_and_it_runs_again_after(
        finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a game's views made the cyclic collector run over the whole process about 17 times
    # in 80 games: a quarter of their CPU, for data with no cycles
    replay = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    build, seen = views.stored_views, []

    def watched(*args: object) -> object:
        seen.append(gc.isenabled())
        return build(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(viewdata, "stored_views", watched)
    assert gc.isenabled()
    assert ensure_views(replay, tmp_path / "views") == 4
    assert seen == [False] and gc.isenabled()

    def broken(*args: object) -> object:
        raise OSError("disk gone")

    monkeypatch.setattr(viewdata, "stored_views", broken)
    with pytest.raises(OSError):
        ensure_views(replay, tmp_path / "other")
    assert gc.isenabled()  # given back on the way out of an error too
    gc.disable()
    try:
        monkeypatch.setattr(viewdata, "stored_views", watched)
        ensure_views(replay, tmp_path / "third")
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()


def test_the_hook_never_stops_a_run_and_the_report_names_the_game(
        finished_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    shutil.rmtree(run / "report")
    replay = sorted((run / "replays").glob("*.jsonl"))[0]
    replay.write_text(replay.read_text()[:200])  # damaged
    ViewsHook(run / "report")(replay.stem, replay)  # no exception
    assert not (run / "report" / DATA / replay.stem / STAMP).exists()
    result = CliRunner().invoke(main, ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert f"no viewer for {replay.stem}" in result.output
    # a pipe gets plain progress lines while the report makes views
    assert "report: viewer data 1/4 games" in result.output
    assert "report: viewer data 4/4 games" in result.output


def test_a_terminal_gets_a_progress_bar_while_views_are_made(
        finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(cli_report, "err_console",
                        Console(file=screen, force_terminal=True, width=100))
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    shutil.rmtree(run / "report")
    built = cli_report.build_with_progress(load_run(run), tmp_path / "site")
    assert built.views == 16
    shown = screen.getvalue()
    assert "report: viewer data" in shown and "4/4" in shown
    screen.truncate(0)
    cli_report.build_with_progress(load_run(run), tmp_path / "site")  # all reused
    assert screen.getvalue() == ""


def test_a_report_elsewhere_copies_the_runs_current_views(finished_run: Path,
                                                          tmp_path: Path) -> None:
    run, out = tmp_path / "run", tmp_path / "site"
    shutil.copytree(finished_run, run)
    stale = sorted((run / "replays").glob("*.jsonl"))[0]
    data = run / "report" / DATA
    (data / stale.stem / "seat0.js").write_text("arenaView(")  # a damaged copy ...
    (data / stale.stem / STAMP).write_text("0" * 64 + "\n")  # ... of another replay
    result = CliRunner().invoke(main, ["report", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    # three games copied (their views made by the run's workers), the stale one made again
    assert "game views: 1 made now (4 files), 3 made by the workers that played them" in \
        " ".join(result.output.split()), result.output
    for game in sorted((run / "replays").glob("*.jsonl")):
        copy = out / DATA / game.stem
        assert is_current(copy, game)
        assert unpack((copy / "seat0.js").read_text())["seat"] == 0
        if game != stale:
            assert (copy / "seat1.js").read_bytes() == (data / game.stem / "seat1.js").read_bytes()


def test_a_refresh_reads_no_unchanged_replay(finished_run: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A stamp whose size and time match its replay is trusted without hashing it (a
    ladder's nightly report would hash every replay of the season)."""
    replay, folder = tmp_path / "game.jsonl", tmp_path / "views"
    shutil.copyfile(sorted((finished_run / "replays").glob("*.jsonl"))[0], replay)
    ensure_views(replay, folder)

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} read and hashed")

    monkeypatch.setattr(viewdata, "digest", no_hashing)
    assert is_current(folder, replay)
    assert ensure_views(replay, folder) == 0


def test_a_replay_changed_in_the_stamps_clock_tick_is_hashed(finished_run: Path,
                                                             tmp_path: Path) -> None:
    """Same size, and the time the stamp records: trusted only if older than the stamp."""
    replay, folder = tmp_path / "game.jsonl", tmp_path / "views"
    shutil.copyfile(sorted((finished_run / "replays").glob("*.jsonl"))[0], replay)
    ensure_views(replay, folder)
    stamp = folder / STAMP
    text = replay.read_text()
    replay.write_text(text.replace('"seat":0', '"seat":1', 1))  # same size, other game
    tick = stamp.stat().st_mtime_ns
    os.utime(replay, ns=(tick, tick))
    digest = stamp.read_text().split()[0]
    stamp.write_text(f"{digest} {replay.stat().st_size} {tick}\n")
    os.utime(stamp, ns=(tick, tick))
    assert not is_current(folder, replay)
    replay.write_text(text)
    os.utime(replay, ns=(tick, tick))
    assert is_current(folder, replay)  # hashed: the digest is the stamp's


def test_a_stamp_says_who_made_the_views_and_an_older_one_still_counts(
        finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replay = sorted((finished_run / "replays").glob("*.jsonl"))[0]
    assert maker(finished_run / "report" / DATA / replay.stem, replay) == WORKER
    folder = tmp_path / "views"
    ensure_views(replay, folder)
    assert maker(folder, replay) == REPORT
    stamp = folder / STAMP
    older = " ".join(stamp.read_text().split()[:3])  # as an arena before makers wrote it
    tick = stamp.stat().st_mtime_ns
    stamp.write_text(f"{older}\n")
    os.utime(stamp, ns=(tick, tick))

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} read and hashed")

    monkeypatch.setattr(viewdata, "digest", no_hashing)  # its quick check still holds
    assert maker(folder, replay) == EARLIER and is_current(folder, replay)
    assert ensure_views(replay, folder) == 0
