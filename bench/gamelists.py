"""Game-list benchmark (figures printed, nothing asserted): the report's games.html and bot
pages for a season's ladder, against the report before game lists were paged.

A run of 210 four-seat `machiavelli` games among 8 random bots is played once; its games
are then repeated, as the report's loader returns them, into a run of --games games (each
in its own round and table, as a ladder's nights add them). The report's pages are built
for both runs twice, each time in a fresh process: by this tree, and by the tree before
(BEFORE, read out of git: every game a row of HTML in games.html and in its bots' pages).
Only the pages are timed: every game counts as having viewer data (its links written),
none is made.

Printed, before -> after: the size of games.html (after: with data/list.js), of the
largest bot page and of all pages, and the build's time; where Debian's chromium and
Playwright are here, the time to open games.html and a bot page, to filter by a bot and
to reach the last page, each until the rows are drawn and painted.

Run: .venv/bin/python bench/gamelists.py [--games N] [--quick]   (default 100,000; --quick
10,000)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from io import BytesIO
from pathlib import Path
from typing import Any

from report import headless_page  # bench/

BEFORE = "8d4665f178d3b335aa5f26d5d8e3d9ad289dc134"
"""The last commit whose game lists were every game as a row of HTML."""
ROOT = Path(__file__).resolve().parents[1]
TABLES = 70
"""Tables of four a round among 8 bots (every foursome once)."""


def play(directory: Path) -> Path:
    """Play the 210-game run (no report); return its directory."""
    bots = "".join(f"  - {{name: bot{i}, cmd: 'builtin:random'}}\n" for i in range(8))
    file = directory / "lists.yaml"
    file.write_text(f"name: lists\ngame: machiavelli\nplayers_per_game: 4\n"
                    f"games_per_pairing: 3\nseed: 3\nbots:\n{bots}")
    out = directory / "run"
    subprocess.run([sys.executable, "-m", "arena", "run", str(file), "-o", str(out),
                    "--no-report"], check=True, stdout=subprocess.DEVNULL)
    return out


def old_tree(directory: Path) -> Path | None:
    """The `arena` package as it was at BEFORE, unpacked into `directory` (None where this
    checkout does not hold that commit: a shallow clone, a source archive)."""
    got = subprocess.run(["git", "-C", str(ROOT), "archive", BEFORE, "arena"],
                         check=False, capture_output=True)
    if got.returncode != 0:
        return None
    archive = got.stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(directory, filter="data")
    return directory


def build(run: Path, games: int, out: Path) -> None:
    """In this process: load `run`, repeat its games to `games`, build the pages into `out`
    and print the seconds the build took (whichever `arena` is imported: old or new)."""
    from arena.report import site
    from arena.report.data import load_run

    loaded = load_run(run)
    many = []
    for i in range(games):
        base = loaded.games[i % len(loaded.games)]
        round_, table = i // TABLES + 1, i % TABLES
        many.append(replace(base, key=f"r{round_}-t{table}-g0", round=round_, table=table))
    keys = {g.key for g in many}

    def viewable(*_: Any) -> set[str]:
        return keys  # the pages' cost only: every game's links written, no view made

    site._write_all_views = viewable  # type: ignore[assignment]  # the benchmark's stand-in
    started = time.perf_counter()
    site.build_report(replace(loaded, games=tuple(many)), out)
    print(time.perf_counter() - started)


def built(tree: Path | None, run: Path, games: int, out: Path) -> float:
    """Build in a fresh process with `tree`'s arena (None: this tree's); return seconds."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    done = subprocess.run([sys.executable, __file__, "--build", str(run), str(games),
                           str(out)], check=True, capture_output=True, text=True, env=env)
    return float(done.stdout.split()[-1])


def sizes(report: Path) -> dict[str, int]:
    bots = [p.stat().st_size for p in (report / "bots").glob("*.html")]
    lists = report / "data" / "list.js"
    pages = sum(p.stat().st_size for p in report.rglob("*.html"))
    return {"games.html": (report / "games.html").stat().st_size
            + (lists.stat().st_size if lists.exists() else 0),
            "largest bot page": max(bots), "all pages": pages
            + (lists.stat().st_size if lists.exists() else 0)}


def drawn(page: Any, action: Callable[[], object]) -> float:
    """Seconds from `action` to the next frame drawn after it (what a person waits for)."""
    started = time.perf_counter()
    action()
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
    return time.perf_counter() - started


def browse(report: Path, repeats: int) -> dict[str, float] | None:
    """Seconds to open games.html and a bot page, filter by a bot and reach the last
    page (drawn and painted; the median of `repeats`), or None without chromium and
    Playwright."""
    runs: dict[str, list[float]] = {}
    bot = sorted((report / "bots").glob("*.html"))[0]
    with headless_page() as page:
        if page is None:
            return None
        page.set_default_timeout(0)  # an old page of 70 MB takes what it takes
        for _ in range(repeats):
            for name, seconds in _visit(page, report, bot).items():
                runs.setdefault(name, []).append(seconds)
    return {name: sorted(times)[len(times) // 2] for name, times in runs.items()}


def _visit(page: Any, report: Path, bot: Path) -> dict[str, float]:
    out = {"open games.html": drawn(page, lambda: page.goto((report / "games.html").as_uri())),
           "filter by a bot": drawn(page, lambda: page.select_option("select[name=bot]",
                                                                     "bot3"))}
    last = page.locator("[data-go=last]")
    if last.count():
        out["last page"] = drawn(page, last.click)
    out["open a bot page"] = drawn(page, lambda: page.goto(bot.as_uri()))
    return out


def mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e5 else f"{n / 1e3:.0f} kB"


def compare(label: str, run: Path, games: int, old: Path, tmp: Path) -> None:
    """Build and open the pages of `games` games with the old tree and this one."""
    before, after = tmp / f"before-{games}", tmp / f"after-{games}"
    seconds = (built(old, run, games, before), built(None, run, games, after))
    print(f"{label}: {games:,} games")
    was, now = sizes(before), sizes(after)
    for name in was:
        print(f"  {name}: {mb(was[name])} -> {mb(now[name])} ({now[name] / was[name]:.3f} x)")
    print(f"  build (pages): {seconds[0]:.2f} s -> {seconds[1]:.2f} s "
          f"({seconds[1] / seconds[0]:.2f} x)")
    repeats = 3 if games <= 10_000 else 1  # an old page of 100,000 rows: once is enough
    opened = (browse(before, repeats), browse(after, repeats))
    if opened[0] is None or opened[1] is None:
        print("  opening: no chromium/playwright here (make browser)")
        return
    for name, then in opened[0].items():
        later = opened[1].get(name)
        print(f"  {name}: {then * 1000:.0f} ms -> "
              + ("(no pages before)" if later is None else
                 f"{later * 1000:.0f} ms ({later / then:.3f} x)"))
    if "last page" in opened[1] and "last page" not in opened[0]:
        print(f"  last page: (every row on one page before) -> "
              f"{opened[1]['last page'] * 1000:.0f} ms")


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="10,000 games")
    parser.add_argument("--build", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        build(Path(args.build[0]), int(args.build[1]), Path(args.build[2]))
        return
    games = 10_000 if args.quick else args.games
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        run = play(tmp)
        old = old_tree(tmp / "before")
        if old is None:
            sys.exit(f"gamelists: commit {BEFORE[:10]} (the lists before) is not in this "
                     f"checkout; a full clone is needed to compare")
        compare("the bench run", run, 3 * TABLES, old, tmp)
        compare("a season's ladder", run, games, old, tmp)


if __name__ == "__main__":
    main_()
