"""Report benchmark (figures printed, nothing asserted): how large and how slow the HTML
report of a run of 210 four-seat `machiavelli` games is, as ratios against baselines
measured in the same run.

- size: the pages, and the viewer's data, against the replays the run keeps; the viewer's
  data against the format before (every seat's view stored whole, public part included),
  made again from the same files;
- the end of a run, wall and CPU (workers and bots counted): `arena run --no-report`, then
  `arena run` with its report (each game's viewer data made by its worker as the game is
  stored) and the report at its end (pages only), against it; and, before, the report at
  the end making every game's viewer data itself (`arena report` on the first run);
- a game's views, made one game after another as a worker makes them, with Python's
  cyclic garbage collector paused (as now) against running (before), alternated;
- build: making the whole report from nothing, and rebuilding it (viewer data reused),
  against re-simulating every replay once (what `arena verify` does at least); the
  rebuild with each game's views found current by the stamp's quick check (the replay's
  size and time) against hashing every replay (before);
- the game lists of 100,000 games: bench/gamelists.py;
- opening (when Debian's chromium and Playwright are here): the index, the game list and
  the viewer against an empty page, each loaded from file:// in a headless browser.

Targets from issue 14: the report of a 200-game run under a few MB, each page under a
second to open, regenerated in seconds.

Run: .venv/bin/python bench/report.py [--quick]   (--quick: 70 games)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any
from unittest.mock import patch

from scaling import _become_subreaper, _children, _children_cpu, _reap  # bench/

from arena.games import REGISTRY
from arena.referee.replay import read_replay
from arena.referee.review import check_replay
from arena.report import site, viewdata
from arena.report.data import load_run
from arena.report.site import build_report
from arena.report.viewdata import DATA, STAMP, digest, pack, read_view


def tournament(games_per_pairing: int) -> str:
    """Eight built-in bots in a round-robin at tables of four (70 tables per repeat)."""
    bots = "".join(f"  - {{name: bot{i}, cmd: 'builtin:random'}}\n" for i in range(8))
    return (f"name: bench\ngame: machiavelli\nplayers_per_game: 4\n"
            f"games_per_pairing: {games_per_pairing}\nseed: 3\nbots:\n{bots}")


def size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.is_file())


def view_sizes(report: Path) -> tuple[int, int]:
    """Bytes of the games' view files as written, and in the format before: each view a
    whole file (a seat's laid over the public view again), packed the same way."""
    now = before = 0
    for file in (report / DATA).glob("*/*.js"):
        view = read_view(file.parent, file.stem)
        now += file.stat().st_size
        before += len(f"arenaView({json.dumps(file.stem)},{pack(view)});\n")
    return now, before


def hashing(folder: Path, replay: Path) -> str | None:
    """The stamp's check before its quick one (as `viewdata.maker`): every replay read and
    hashed."""
    try:
        recorded = (folder / STAMP).read_text().split()
        return " ".join(recorded[3:]) if recorded[0] == digest(replay) else None
    except (OSError, IndexError):
        return None


def command(*args: str) -> tuple[float, float]:
    """Run `arena ARGS` in a new process; return its wall and CPU seconds (the command, its
    workers and their bots: the workers are the fork server's children, counted because
    this process adopts them as a subreaper)."""
    cpu, start, before = _children_cpu(), time.perf_counter(), _children()
    subprocess.run([sys.executable, "-m", "arena", *args], check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    _reap(_children() - before)
    return wall, _children_cpu() - cpu


def views_cpu(replays: list[Path], out: Path) -> tuple[float, float]:
    """CPU seconds a game's views cost, made one game after another as a worker makes
    them: with the cyclic collector paused (as now), and running (before); the two
    alternated game by game, so that the machine's load falls on both alike."""
    spent = {"paused": 0.0, "running": 0.0}
    for n, replay in enumerate(replays):
        for mode, seam in (("paused", viewdata.collector_paused), ("running", nullcontext)):
            with patch.object(viewdata, "collector_paused", seam):
                started = time.process_time()
                viewdata.ensure_views(replay, out / mode / str(n))
                spent[mode] += time.process_time() - started
    return spent["paused"] / len(replays), spent["running"] / len(replays)


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


@contextmanager
def headless_page() -> Iterator[Any | None]:
    """A page of headless chromium (Debian's, driven by Playwright), closed after; None
    where either is missing."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        yield None
        return
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            yield browser.new_page()
        finally:
            browser.close()


def open_times(report: Path, game: str) -> dict[str, float] | None:
    """Seconds to load each page (median of 3) in headless chromium, or None without it."""
    (report / "blank.html").write_text("<!doctype html><title>blank</title>")
    pages = {"empty page": "blank.html", "index": "index.html", "games": "games.html",
             "viewer": f"viewer.html?game={game}&view=seat0"}
    out: dict[str, float] = {}
    with headless_page() as page:
        if page is None:
            return None
        for name, address in pages.items():
            runs = []
            for _ in range(3):
                started = time.perf_counter()
                page.goto((report / address.split("?")[0]).as_uri()
                          + ("?" + address.split("?")[1] if "?" in address else ""))
                if name == "viewer":
                    page.wait_for_selector("#board .seat")
                runs.append(time.perf_counter() - started)
            out[name] = sorted(runs)[1]
    return out


def main_() -> None:
    quick = "--quick" in sys.argv
    repeats = 1 if quick else 3  # 70 tables a repeat: 70 or 210 games
    counted = _become_subreaper()
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "bench.yaml"
        file.write_text(tournament(repeats))
        run, now = Path(tmp) / "plain", Path(tmp) / "now"
        plain = command("run", str(file), "-o", str(run), "--no-report")
        hooked = command("run", str(file), "-o", str(now))
        after = timed(lambda: build_report(load_run(now), now / "report"))
        before = command("report", str(run))
        print(f"arena run --no-report: {plain[0]:.1f} s, CPU {plain[1]:.1f} s"
              + ("" if counted else " (workers not counted: no subreaper here)"))
        print(f"arena run with its report, as now (viewer data made by the workers): "
              f"{hooked[0]:.1f} s ({hooked[0] / plain[0]:.2f} x), CPU {hooked[1]:.1f} s "
              f"({hooked[1] / plain[1]:.2f} x); the report at its end (pages only) "
              f"{after:.2f} s ({after / plain[0]:.3f} x the run)")
        print(f"before (every view made at the end, as `arena report` on a run without "
              f"viewer data): the report {before[0]:.1f} s ({before[0] / plain[0]:.2f} x the "
              f"run), CPU {before[1]:.1f} s; run and report "
              f"{(plain[0] + before[0]) / plain[0]:.2f} x the run, CPU "
              f"{(plain[1] + before[1]) / plain[1]:.2f} x")
        replays = sorted((run / "replays").glob("*.jsonl"))
        verify = timed(lambda: [check_replay(read_replay(p), REGISTRY) for p in replays])
        report = run / "report"
        shutil.rmtree(report)
        build = timed(lambda: build_report(load_run(run), report))
        rebuild = timed(lambda: build_report(load_run(run), report))
        with patch.object(site, "maker", hashing):
            hashed = timed(lambda: build_report(load_run(run), report))
        files = [p for p in report.rglob("*") if p.is_file()]
        pages = size([p for p in files if p.suffix == ".html"])
        data = size([p for p in files if "data" in p.parts])
        assets = size([p for p in files if "assets" in p.parts])
        kept = size(replays)
        views, whole = view_sizes(report)
        print(f"{len(replays)} games of 4 seats; replays {kept / 1e6:.2f} MB")
        print(f"pages {pages / 1e6:.2f} MB ({pages / kept:.3f} x replays), viewer data "
              f"{data / 1e6:.2f} MB ({data / kept:.2f} x replays), assets {assets / 1e3:.0f} kB;"
              f" report in all {(pages + data + assets) / 1e6:.2f} MB")
        print(f"views {views / 1e6:.2f} MB against {whole / 1e6:.2f} MB with every view whole "
              f"(the format before): {views / whole:.2f} x; the report in all "
              f"{(pages + data + assets) / 1e6:.2f} MB against "
              f"{(pages + data - views + whole + assets) / 1e6:.2f} MB")
        paused, running = views_cpu(replays, Path(tmp) / "views")
        print(f"a game's views: {paused * 1e3:.1f} ms of CPU with the garbage collector "
              f"paused, {running * 1e3:.1f} ms with it running (before): "
              f"{paused / running:.2f} x")
        print(f"build {build:.2f} s ({build / verify:.2f} x re-simulating every replay, "
              f"{verify:.2f} s); rebuild {rebuild:.2f} s ({rebuild / verify:.2f} x), "
              f"against {hashed:.2f} s hashing every replay (before): {rebuild / hashed:.2f} x")
        opened = open_times(report, replays[0].stem)
        if opened is None:
            print("opening: no chromium/playwright here (make browser)")
        else:
            base = opened.pop("empty page")
            print("opening (median of 3): " + ", ".join(
                f"{name} {t * 1000:.0f} ms ({t / base:.1f} x an empty page)"
                for name, t in opened.items()) + f"; empty page {base * 1000:.0f} ms")


if __name__ == "__main__":
    main_()
