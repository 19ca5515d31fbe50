"""What `arena run` prints: plain progress lines in a pipe, a live table that follows every
stored game, tables that never cut a name at 80 columns, status 130 on Ctrl-C."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import arena.cli.run as run_module
from arena.cli import main
from arena.cli.run import _LiveView, _ProgressLines, render_table
from arena.cli.ui import console
from arena.core.game import Termination
from arena.core.record import GameRecord, SeatRecord
from arena.tournament.config import load_config
from arena.tournament.runner import Interrupted, Progress, Runner
from arena.tournament.standings import Row, Standings
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
    monkeypatch.setattr(console, "width", 80)


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
    assert all(len(line) <= 80 for line in table)
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
              placing_sum=300, wins=40, faults=12, timeouts=3, crashes=1)
    out = Console(file=io.StringIO(), width=80)
    out.print(render_table(Standings((row,), None, 120), "t"))
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines())
    rows = text.splitlines()[3:-2]  # title, header, rule; the caption's two lines last
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


def _run_with_view(tmp_path: Path) -> list[tuple[int, int]]:
    file = tmp_path / "t.yaml"
    file.write_text(FILE.replace("concurrency: 1", "concurrency: 2"))
    view = _LiveView()
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


def test_the_live_table_counts_every_game_as_soon_as_it_is_stored(tmp_path: Path) -> None:
    seen = _run_with_view(tmp_path)
    assert seen[-1] == (5, 5)
    assert all(done == games for done, games in seen)


def test_ctrl_c_exits_130_in_run(runner: CliRunner, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(self: Runner) -> None:
        raise Interrupted("interrupted: 0 of 5 games are stored")

    monkeypatch.setattr(Runner, "run", interrupted)
    file = tmp_path / "t.yaml"
    file.write_text(FILE)
    result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "out")])
    assert result.exit_code == 130
    assert "Resume with: arena run" in result.output
