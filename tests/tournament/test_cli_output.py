"""What `arena run` prints: plain progress lines in a pipe, a live table that counts every
stored game by its next redraw (and is not recomputed more often than it is drawn), tables
that never cut a name at 80 columns, status 130 on Ctrl-C."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import arena.cli.run as run_module
from arena.cli import main
from arena.cli.run import _LiveView, _ProgressLines, render_table
from arena.core.game import Termination
from arena.core.record import GameRecord, SeatRecord
from arena.tournament.config import load_config
from arena.tournament.outputs import rating_texts
from arena.tournament.ratings import Fit, Rating
from arena.tournament.runner import Interrupted, Progress, Runner
from arena.tournament.standings import Row, Standings
from arena.tournament.workers import Event, Pool
from tests.tournament.fakes import FakeReferee

LONG = ["builtin-random-challenger-one", "builtin-random-challenger-two",
        "timeout-bot-that-sleeps", "no_connect_bot", "greedy-1"]
FILE = """\
name: long
game: machiavelli
players_per_game: 4
concurrency: 1
bots:
""" + "".join(f"  - {{name: {name}, cmd: 'builtin:random'}}\n" for name in LONG)


@pytest.fixture
def narrow(monkeypatch: pytest.MonkeyPatch) -> None:
    # by COLUMNS, not console.width: setting the property fixes the width for good, and the
    # undo then left every later test's console at this one's 80 columns
    monkeypatch.setenv("COLUMNS", "80")


def test_a_piped_run_prints_a_line_per_game_then_whole_names(
        runner: CliRunner, tmp_path: Path, narrow: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_module, "live_view_wanted", lambda: False)
    file = tmp_path / "t.yaml"
    file.write_text(FILE)
    result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "5 games to play"
    progress = [line for line in lines if line.startswith("[")]
    assert [line.split("]")[0] for line in progress] == [f"[{n}/5" for n in range(1, 6)]
    assert all("faults 0, timeouts 0, forfeits 0" in line and "ETA" in line
               for line in progress)
    final = [line.rstrip() for line in lines].index("long: final standings (5 games)")
    assert final > lines.index(progress[-1])  # the progress came before the table
    report = next(i for i, line in enumerate(lines) if line.startswith("Report: "))
    table = lines[final:report]
    # the table fits 80 columns; a line of text is one line, however long (a cron log)
    results = next(line for line in table if line.startswith("Results in "))
    assert results.endswith("(results.sqlite, results.json, standings.csv, replays/)")
    assert all(len(line) <= 80 for line in table if line is not results)
    for name in LONG:  # each name whole on its own row, never "builtin-rand…"
        assert any(f" {name} " in line for line in table), name
    assert "…" not in result.output
    # the report's path whole on its line, however long; its figures on the next, whole
    assert lines[report] == f"Report: {tmp_path / 'out' / 'report' / 'index.html'}"
    assert lines[report + 1].startswith("  ") and lines[report + 1].endswith(" s")
    assert len(lines[report + 1]) <= 80


def test_a_name_too_long_for_80_columns_wraps_instead_of_being_cut() -> None:
    name = "a-bot-name-far-too-long-to-fit-in-any-column-of-an-80-column-table"
    row = Row(name, rank=1, games=120, points=212.5, fit_elo=1523.2, interval=123.4,
              placing_sum=300, wins=40, faults=12, timeouts=3, forfeits=1)
    out = Console(file=io.StringIO(), width=80)
    fit = Fit({name: Rating(name, 1523.2, 63.0, 123.4)}, {name: {}}, 1, ((name,),))
    out.print(render_table(Standings((row,), fit, 120, model="plackett-luce"), "t"))
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines())
    rows = text.splitlines()[3:-3]  # title, header, rule; the caption's three lines last
    assert rows[0].split()[0] == "1" and len(rows) == 3
    assert rows[0].split()[1] + "".join(line.strip() for line in rows[1:]) == name
    assert "1523 ± 123" in text and "12/3/1" in text


def test_progress_lines_in_a_long_run_come_about_every_hundredth_game(
        capsys: pytest.CaptureFixture[str]) -> None:
    lines = _ProgressLines()
    record = GameRecord("toy@1", {}, 1, Termination.COMPLETED,
                        (SeatRecord(0, "a", "", 1, 3), SeatRecord(1, "b", "", 2, 1)),
                        replay="/x/r1-t0-g0.jsonl")
    state = Progress(total=1000)
    lines.update(state)  # the first game starts
    for done in range(1, 1001):
        state.done, state.last = done, record
        lines.update(state)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "1000 games to play"
    assert len(printed) == 101
    assert printed[1].startswith("[10/1000] r1-t0-g0: 1 a, 2 b | faults 0")
    assert printed[-1].startswith("[1000/1000] ")


class Clock:
    """A clock for the live view that moves only when told (`now`), or by `step` at each
    update of a view (`Ticking`)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Ticking(_LiveView):
    """A live view whose clock moves `step` before each update: events `step` apart."""

    def __init__(self, step: float) -> None:
        self.ticks = Clock()
        super().__init__(self.ticks)
        self.step = step

    def update(self, state: Progress) -> None:
        self.ticks.now += self.step
        super().update(state)


def _run_with_view(tmp_path: Path) -> list[tuple[int, int]]:
    file = tmp_path / "t.yaml"
    file.write_text(FILE.replace("concurrency: 1", "concurrency: 2"))
    view = Ticking(run_module.REFRESH_S)  # every event a redraw's time after the last
    seen: list[tuple[int, int]] = []

    def update(state: Progress) -> None:
        view.update(state)
        assert view.table is not None
        seen.append((state.done, view.table.games))

    runner = Runner(load_config(file), tmp_path / "out", referee=FakeReferee,
                    on_progress=update)
    view.runner = runner
    runner.run()
    return seen


def test_the_live_table_counts_every_game_stored_by_its_next_redraw(tmp_path: Path) -> None:
    seen = _run_with_view(tmp_path)
    assert seen[-1] == (5, 5)
    assert all(done == games for done, games in seen)


def test_the_runner_reports_progress_when_nothing_happens_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # what lets a view that redraws at most so often show the games it left out
    idle = [True]
    next_event = Pool.next_event

    def quiet_first(self: Pool) -> Event | None:
        if idle:
            idle.clear()
            return None  # nothing said for POLL_S
        return next_event(self)

    monkeypatch.setattr(Pool, "next_event", quiet_first)
    file = tmp_path / "t.yaml"
    file.write_text(FILE)
    calls: list[dict[int, object]] = []
    Runner(load_config(file), tmp_path / "out", referee=FakeReferee,
           on_progress=lambda state: calls.append(dict(state.running))).run()
    # called before any game started: the quiet moment (a worker's first word is its
    # game's start, which the runner records before it calls)
    assert calls[0] == {}


class TableRunner:
    """What the live view asks of a runner: its standings so far, each taking `cost` of the
    view's clock."""

    def __init__(self, clock: Clock, cost: float) -> None:
        self.clock, self.cost, self.done, self.computed = clock, cost, 0, 0

    def live_standings(self) -> Standings:
        self.computed += 1
        self.clock.now += self.cost
        return Standings((), None, self.done)


def _view(step: float, cost: float = 0.0) -> tuple[Ticking, TableRunner]:
    view = Ticking(step)
    table = TableRunner(view.ticks, cost)
    view.runner = table  # type: ignore[assignment]
    return view, table


def test_games_stored_between_redraws_are_not_recomputed_for_each() -> None:
    # recomputed and redrawn at every event, the live view took ~90% of the coordinator's
    # CPU (8-bot benchmark, 2 workers): the workers then waited for their next games
    view, table = _view(step=run_module.REFRESH_S / 10)
    state = Progress(total=100)
    for done in range(1, 101):
        state.done = table.done = done
        view.update(state)
    assert 9 <= table.computed <= 11  # one recompute a redraw, not one a game
    assert view.table is not None and view.table.games >= 90


def test_the_view_catches_up_on_an_idle_tick() -> None:
    # a burst of games, then nothing for a while: the runner calls again with no news,
    # and the table then counts every game of the burst
    view, table = _view(step=0.0)
    state = Progress(total=10)
    for done in range(1, 6):
        state.done = table.done = done
        view.update(state)
    assert table.computed == 1 and view.table is not None and view.table.games == 1
    view.step = run_module.REFRESH_S
    view.update(state)  # the idle tick
    assert table.computed == 2 and view.table.games == 5


def test_a_costly_table_takes_a_small_share_of_the_time() -> None:
    cost = 1.0  # a huge field, late in its run: each recompute 4 redraws long
    view, table = _view(step=run_module.REFRESH_S, cost=cost)
    state = Progress(total=10_000)
    for done in range(1, 2001):
        state.done = table.done = done
        view.update(state)
    spent = table.computed * cost
    assert 0 < spent <= view.ticks.now / (run_module.TABLE_SHARE + 1) + cost


@pytest.mark.parametrize(("extra", "hint_ends"), [
    ([], ""), (["--cluster", "tcp://sched:8786"], " --cluster tcp://sched:8786")])
def test_ctrl_c_exits_130_in_run_with_a_resume_hint(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        extra: list[str], hint_ends: str) -> None:
    """The hint repeats --cluster (a run stopped on a cluster resumes there)."""
    def interrupted(self: Runner) -> None:
        raise Interrupted("interrupted: 0 of 5 games stored")

    monkeypatch.setattr(Runner, "run", interrupted)
    file = tmp_path / "t.yaml"
    file.write_text(FILE)
    result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "out"), *extra])
    assert result.exit_code == 130
    assert " ".join(result.output.split()).endswith(
        f"Resume with: arena run {file} --resume --out {tmp_path / 'out'}{hint_ends}")


def test_a_warning_during_the_live_view_prints_above_it_not_inside() -> None:
    """Two consoles on one terminal (the view's on stdout, the log's on stderr): rich writes
    the log's straight to the terminal, into the view's last line, and the next redraw
    erased it. Through the view's console it is printed on lines of its own, above."""
    import logging

    from rich.live import Live
    from rich.logging import RichHandler

    from arena.cli.ui import logs_through

    terminal = io.StringIO()
    view = Console(file=terminal, force_terminal=True, width=100)
    logs = Console(file=terminal, force_terminal=True, width=100)
    logger = logging.getLogger("arena.test-live")
    handler = RichHandler(console=logs, show_path=False)
    logging.getLogger("arena").addHandler(handler)
    try:
        with Live("VIEW-LINE", console=view, auto_refresh=False) as live, logs_through(view):
            live.refresh()
            logger.warning("a bot faulted")
        assert handler.console is logs  # given back after the view
    finally:
        logging.getLogger("arena").removeHandler(handler)
    lines = terminal.getvalue().replace("\r", "\n").splitlines()
    warned = [line for line in lines if "a bot faulted" in line]
    assert warned and not any("VIEW-LINE" in line for line in warned), lines


def test_a_piped_runs_warnings_are_one_line_each(tmp_path: Path) -> None:
    """Found by an organiser: piped to a file, stderr was wrapped at 80 columns, so `grep`
    caught half a warning. On stderr that is no terminal each record is one line."""
    import subprocess
    import sys

    file = tmp_path / "t.yaml"
    long_name = "a-bot-whose-name-is-long-enough-to-wrap-any-eighty-column-line"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 2\nseed: 1\nbots:\n"
                    f"  - {{name: {long_name}, cmd: '{sys.executable} -c \"raise SystemExit(3)\"'}}"
                    "\n  - {name: b, cmd: 'builtin:random'}\n")
    done = subprocess.run([sys.executable, "-m", "arena", "run", str(file), "--out",
                           str(tmp_path / "out"), "--no-report", "-j", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if " WARNING " in line]
    assert warned, done.stderr
    assert all(long_name in line and "forfeits:" in line for line in warned), warned


def test_a_resumed_runs_stored_games_do_not_count_as_speed() -> None:
    """Found by an organiser: a resumed run's ETA read 3 s where 40 were left; rich took the
    stored games, counted at once, for games played in no time."""
    view = _LiveView()
    view.update(Progress(total=24, done=4, resumed=4))
    view.update(Progress(total=24, done=5, resumed=4))
    (task,) = view.bar.tasks
    assert task.completed == 5
    assert sum(sample.completed for sample in task._progress) == 1  # rich's speed samples


def test_the_live_table_heads_its_online_rating_as_what_it_is() -> None:
    # the live view has no fit: its column held OpenSkill's mean under "Elo ±95%", with an
    # LOS column of dashes
    rows = (Row("a", rank=1, games=3, points=6, elo=1612.4, placing_sum=4),
            Row("b", rank=2, games=3, points=3, elo=1388.0, placing_sum=8))
    out = Console(file=io.StringIO(), width=80)
    out.print(render_table(Standings(rows, None, 3), "live top of the table"))
    lines = [line.strip() for line in out.file.getvalue().splitlines()]  # type: ignore[attr-defined]
    assert lines[1].split() == ["#", "bot", "games", "points", "rating", "place", "F/T/X"]
    assert lines[3].split()[4] == "1612"
    assert ("rating: OpenSkill online Plackett-Luce (mean belief), Elo scale; no interval or "
            "LOS until the final table's fit") in " ".join(lines)  # wrapped to the table


def test_a_bot_the_fit_did_not_rate_shows_no_rating_beside_the_fits() -> None:
    rated = Row("a", rank=1, games=3, points=6, elo=1612.4, fit_elo=1550.0, interval=80.0)
    unrated = Row("new", rank=2, elo=1500.0)  # entered, no game yet: the online default
    fit = Fit({"a": Rating("a", 1550.0, 40.0, 80.0)}, {"a": {}}, 1, (("a",),))
    out = Console(file=io.StringIO(), width=80)
    out.print(render_table(Standings((rated, unrated), fit, 3, model="plackett-luce"), "t"))
    lines = out.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert "1550 ± 80" in lines[3] and "1500" not in lines[4] and lines[4].split()[4] == "-"


def test_the_plus_minus_signs_of_the_rating_column_line_up() -> None:
    # right-justified cells put "1892 ± 85" one place right of "2003 ± 124"
    names = ("a", "b", "c")
    values = ((2003.0, 124.0), (1892.0, 85.0), (987.0, 9.0))
    rows = tuple(Row(n, rank=i + 1, games=16, points=40 - i, fit_elo=e, interval=w)
                 for i, (n, (e, w)) in enumerate(zip(names, values, strict=True)))
    fit = Fit({n: Rating(n, e, w / 2, w) for n, (e, w) in zip(names, values, strict=True)},
              {n: {} for n in names}, 1, (names,))
    out = Console(file=io.StringIO(), width=80)
    out.print(render_table(Standings(rows, fit, 16, model="plackett-luce"), "t"))
    text = out.file.getvalue()  # type: ignore[attr-defined]
    lines = [line for line in text.splitlines() if re.search(r"\d ± +\d", line)]
    assert len(lines) == 3 and len({line.index("±") for line in lines}) == 1, lines
    assert "1892 ±  85" in lines[1] and " 987 ±   9" in lines[2]


def test_rating_cells_pad_to_the_column_with_or_without_an_interval() -> None:
    # the ladder's table mixes them: a version with too few games has no interval
    cells = rating_texts([(2003.4, 124.0), (987.0, 9.2), (1500.0, None), (None, None)])
    assert cells == ["2003 ± 124", " 987 ±   9", "1500      ", "-"]
    assert rating_texts([(1500.0, None), (2001.0, None)]) == ["1500", "2001"]
