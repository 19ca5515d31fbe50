"""`arena run --dry-run`, `arena standings` and errors through the command line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.referee import sandbox
from arena.tournament.config import load_config
from arena.tournament.runner import Runner
from tests.tournament.fakes import FakeReferee

ROOT = Path(__file__).resolve().parents[2]
SMALL = """\
name: small
game: machiavelli
players_per_game: 4
games_per_pairing: 4
bots:
""" + "".join(f"  - {{name: b{i}, cmd: 'builtin:random'}}\n" for i in range(5))


def test_dry_run_prints_the_schedule_and_count(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    result = runner.invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "round 1" in result.output and "table 0 game 3:" in result.output
    assert result.output.strip().endswith("small: round-robin, 5 rounds, 20 games")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("cluster", "bot_file", "said"), [
    ("local:1", "bot.py", "Error: bot 'here': bot.py lies beside the tournament file"),
    ("tcp://nosuch.invalid:8786", "bots/bot.py", "Error: cannot reach the Dask scheduler at "
     "tcp://nosuch.invalid:8786: its host name cannot be looked up")])
def test_a_dry_run_on_a_cluster_refuses_what_the_run_would(
        runner: CliRunner, tmp_path: Path, cluster: str, bot_file: str, said: str) -> None:
    # the organiser's check the day before passed both, and the club night's run refused
    # them before its first game (found by an organiser's audit)
    (tmp_path / bot_file).parent.mkdir(exist_ok=True)
    (tmp_path / bot_file).write_text("")
    file = tmp_path / "t.yaml"
    file.write_text(SMALL + f"  - {{name: here, cmd: 'python3 {bot_file}'}}\n")
    result = runner.invoke(main, ["run", str(file), "--dry-run", "--cluster", cluster])
    assert result.exit_code == 1, result.output
    assert said in " ".join(result.output.split()), result.output
    assert not (tmp_path / "runs").exists()


def test_shipped_tournaments_load(runner: CliRunner) -> None:
    for name in ("demo.yaml", "swiss-club-night.yaml"):
        result = runner.invoke(main, ["run", str(ROOT / "tournaments" / name), "--dry-run"])
        assert result.exit_code == 0, result.output
    assert len(load_config(ROOT / "tournaments" / "swiss-club-night.yaml").bots) >= 8


def test_yaml_problems_exit_1_with_lines(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL.replace("games_per_pairing: 4", "games_per_pairng: 4\nformat: x"))
    result = runner.invoke(main, ["run", str(file)])
    assert result.exit_code == 1
    assert f"{file}:4: unknown key 'games_per_pairng'" in result.output
    assert f"{file}:5: 'format': 'x' is not valid" in result.output


def test_missing_bot_command_is_reported_before_any_game(runner: CliRunner,
                                                        tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL + "  - {name: gone, cmd: '{python} nowhere.py'}\n")
    result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "t.yaml:11: bot 'gone': file 'nowhere.py' not found" in result.output
    assert not (tmp_path / "o").exists()


def test_standings_in_every_format(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    as_json = runner.invoke(main, ["standings", str(out), "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    assert data["games"] == 20 and [r["rank"] for r in data["standings"]] == [1, 2, 3, 4, 5]
    assert data["standings"] == json.loads((out / "results.json").read_text())["standings"]
    as_csv = runner.invoke(main, ["standings", str(out), "--format", "csv"])
    assert as_csv.output == (out / "standings.csv").read_text()
    assert len(list(csv.DictReader(io.StringIO(as_csv.output)))) == 5
    table = runner.invoke(main, ["standings", str(out)])
    assert table.exit_code == 0 and "b0" in table.output and "20 games" in table.output
    missing = runner.invoke(main, ["standings", str(tmp_path)])
    assert missing.exit_code == 1 and "no results database" in missing.output


def test_standings_crosstable_and_los_in_every_format(runner: CliRunner,
                                                      tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    data = json.loads(runner.invoke(main, ["standings", str(out), "--format", "json"]).output)
    rows = data["standings"]
    # each row's LOS over the next one, from the fit's matrix; none for the last row
    assert [r["los_next"] for r in rows[:-1]] == [
        data["los"][a["bot"]][b["bot"]] for a, b in zip(rows, rows[1:], strict=False)]
    assert rows[-1]["los_next"] is None
    # 4-seat games: every pair at a table is one pairwise result; 20 games of 4 among 5
    # bots give each pair 12 results (the tables that seat both), and the two sides agree
    cross = data["crosstable"]
    for a in cross:
        for b, (w, d, lost) in cross[a].items():
            assert w + d + lost == 12 and cross[b][a] == [lost, d, w]
    as_csv = runner.invoke(main, ["standings", str(out), "--format", "csv", "--crosstable"])
    lines = list(csv.reader(io.StringIO(as_csv.output)))
    assert lines[0] == ["#", "bot", "1", "2", "3", "4", "5"]
    first, second = lines[1][1], lines[2][1]
    w, d, _ = cross[first][second]
    assert lines[1][3] == f"{w + d / 2:g}/12" and lines[1][2] == "x"
    md = runner.invoke(main, ["standings", str(out), "--format", "md"]).output.splitlines()
    assert md[0].startswith("| # | bot | games | points | rating ±95% | LOS |")
    assert md[1].startswith("|---:|:---|") and md[7] == ""
    # a pasted table says which model rated it, as the terminal's caption does
    assert md[8:] == ["- place: mean placing; F/T/X: faults, timeouts, forfeits",
                      "- rating: Plackett-Luce fit of whole placings, Elo scale, ±95%",
                      "- LOS: likelihood of superiority over the next row"]
    table = runner.invoke(main, ["standings", str(out), "--crosstable"])
    assert table.exit_code == 0 and "crosstable" in table.output
    # the caption explains the columns in whole lines (wrapped as one, "LOS:" ended one)
    plain = runner.invoke(main, ["standings", str(out)]).output.splitlines()
    assert "LOS: likelihood of superiority over the next row" in [s.strip() for s in plain]


def _refused(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             content: bytes, *args: str) -> str:
    """Run `arena run` on `content` from tmp_path; return its one error; nothing is created."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_bytes(content)
    (tmp_path / "a-file").write_text("")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = runner.invoke(main, ["run", "t.yaml", *args])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # a message, not a traceback
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    return result.output


def test_a_file_that_is_not_utf8_is_one_line_with_its_byte_offset(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    output = _refused(runner, tmp_path, monkeypatch, SMALL.encode().replace(b"small", b"sm\xffall"))
    assert output == ("Error: t.yaml:1: not UTF-8 text: byte 0xff at byte offset 8; save the "
                      "file as UTF-8\n")


@pytest.mark.parametrize("name", ["../../..", "a/b", "/tmp/x"])
def test_a_name_that_is_a_path_writes_nothing(runner: CliRunner, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              name: str) -> None:
    output = _refused(runner, tmp_path, monkeypatch,
                      SMALL.replace("name: small", f"name: '{name}'").encode())
    assert f"t.yaml:1: 'name' '{name}' must be a plain file name" in output


def test_a_huge_tournament_is_refused_with_its_game_count(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    output = _refused(runner, tmp_path, monkeypatch,
                      SMALL.replace("games_per_pairing: 4", "games_per_pairing: 1000000000")
                      .encode())
    assert "t.yaml:4: this tournament has 5,000,000,000 games" in output


def test_an_output_directory_that_cannot_be_made_is_one_line(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    output = _refused(runner, tmp_path, monkeypatch, SMALL.encode(), "--out", "a-file/run")
    assert output == "Error: output directory a-file/run: a-file is not a directory\n"
    output = _refused(runner, tmp_path, monkeypatch,
                      (SMALL + "out: a-file/run\n").encode())
    assert output == (f"Error: output directory {tmp_path}/a-file/run: {tmp_path}/a-file is "
                      "not a directory\n")


@pytest.mark.parametrize("dry", [False, True], ids=["run", "dry-run"])
def test_the_checks_before_a_run_say_every_problem_at_once(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dry: bool) -> None:
    # a missing script, then (once fixed) the output directory, then the sandbox: three runs
    monkeypatch.setattr(sandbox, "probe_bwrap", lambda: (None, "no bubblewrap (test)"))
    content = SMALL.replace("cmd: 'builtin:random'}", "cmd: 'python3 gone.py'}", 1)
    output = _refused(runner, tmp_path, monkeypatch, (content + "sandbox: bwrap\n").encode(),
                      "--out", "a-file/run", *(["--dry-run"] if dry else []))
    assert output.splitlines() == [
        "Error: 1 problem in tournament file t.yaml:",
        f"t.yaml:6: bot 'b0': file 'gone.py' not found in {tmp_path}",
        "output directory a-file/run: a-file is not a directory",
        "sandbox: bwrap was asked for, but no bubblewrap (test)"]


def test_out_in_the_file_is_relative_to_the_file(runner: CliRunner, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    (tmp_path / "t.yaml").write_text(SMALL.replace("games_per_pairing: 4",
                                                   "games_per_pairing: 1") + "out: results\n")
    result = runner.invoke(main, ["run", str(tmp_path / "t.yaml"), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "results" / "results.sqlite").is_file()
    assert list(here.iterdir()) == []


def test_max_bots_has_the_files_bounds_on_the_command_line(runner: CliRunner,
                                                           tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    result = runner.invoke(main, ["run", str(file), "--dry-run", "--max-bots", "100001"])
    assert result.exit_code == 2
    assert "100001 is not in the range 1<=x<=100000" in result.output


SWISS = """\
name: sw
game: machiavelli
players_per_game: 2
format: swiss
rounds: 3
bots:
""" + "".join(f"  - {{name: b{i}, cmd: 'builtin:random'}}\n" for i in range(5))
GAUNTLET = SMALL.replace("players_per_game: 4", "players_per_game: 2\nformat: gauntlet\n"
                         "challengers: [b0]")


@pytest.mark.parametrize(("text", "columns", "ranking"), [
    (SWISS, ["Buch.", "byes"], "ranked by points, then Buch. (Buchholz"),
    (GAUNTLET, ["pts/game"], "ranked by points per game"),
    (SMALL, [], None)], ids=["swiss", "gauntlet", "round-robin"])
def test_the_standings_show_what_their_ranking_rests_on(
        runner: CliRunner, tmp_path: Path, text: str, columns: list[str],
        ranking: str | None) -> None:
    # a Swiss ranks by points then Buchholz, a gauntlet by points per game (the field
    # plays fewer games): neither was shown, and the table's order looked arbitrary
    file = tmp_path / "t.yaml"
    file.write_text(text)
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    data = json.loads(runner.invoke(main, ["standings", str(out), "--format", "json"]).output)
    md = runner.invoke(main, ["standings", str(out), "--format", "md"]).output.splitlines()
    header = [c.strip() for c in md[0].strip("|").split("|")]
    assert header == ["#", "bot", "games", "points", *columns, "rating ±95%", "LOS", "place",
                      "F/T/X"]
    for line, row in zip(md[2:md.index("")], data["standings"], strict=True):
        cells = dict(zip(header, (c.strip() for c in line.strip("|").split("|")),
                         strict=True))
        assert cells["bot"] == row["bot"]
        if "Buch." in cells:
            assert float(cells["Buch."]) == row["buchholz"]
            assert int(cells["byes"]) == row["byes"]
        if "pts/game" in cells:
            assert cells["pts/game"] == f"{row['points'] / row['games']:.2f}"
    plain = [s.strip() for s in runner.invoke(main, ["standings", str(out)]).output
             .splitlines()]
    assert any(line.startswith(ranking) for line in plain) if ranking else \
        not any(line.startswith("ranked by") for line in plain)


def test_a_gauntlets_results_name_its_challengers(tmp_path: Path) -> None:
    # results.json said `rounds: 7` (ignored by a gauntlet) and not who the challengers were
    file = tmp_path / "t.yaml"
    file.write_text(GAUNTLET.replace("format: gauntlet", "format: gauntlet\nrounds: 7"))
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    settings = json.loads((out / "results.json").read_text())["tournament"]
    assert settings["challengers"] == ["b0"] and settings["rounds"] is None


def test_a_file_whose_bots_are_left_empty_plays_nothing(runner: CliRunner,
                                                        tmp_path: Path) -> None:
    # `bots:` with nothing under it ran, and wrote, a tournament of 0 games
    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 4\nbots:\n")
    for extra in (["--dry-run"], ["--out", str(tmp_path / "o")]):
        result = runner.invoke(main, ["run", str(file), *extra])
        assert result.exit_code == 1, result.output
        assert result.output.splitlines()[-1] == (
            f"{file}:4: 'bots' lists no bot: a round-robin at tables of 4 needs at least 3 "
            "bots (a table may be a seat short)")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("change", "options", "said"), [
    ("  - {name: gone, cmd: 'no-such-program-xyz'}\n", [],
     "bot 'gone': command 'no-such-program-xyz' not found"),
    ("", ["--out", "{tmp}/a-file/out"], "output directory {tmp}/a-file/out: {tmp}/a-file is "
     "not a directory"),
    ("sandbox: bwrap\n", [], "sandbox: bwrap was asked for, but no bubblewrap here"),
    ("", ["--max-bots", "2"], "2 is less than the table size (4)"),
], ids=["command", "out", "bwrap", "max-bots"])
def test_a_dry_run_fails_as_the_run_would_before_its_schedule(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str,
        options: list[str], said: str) -> None:
    # found by an organiser's audit: a dry run printed the schedule of a file whose run
    # then refused to start (an output directory it cannot write, a sandbox not there,
    # --max-bots under the table size), or printed it before saying a bot was missing
    from arena.referee import sandbox

    monkeypatch.setattr(sandbox, "probe_bwrap", lambda: (None, "no bubblewrap here"))
    (tmp_path / "a-file").write_text("")
    file = tmp_path / "t.yaml"
    file.write_text(SMALL + change if change.startswith(" ") else change + SMALL)
    args = [a.format(tmp=tmp_path) for a in options] or ["--out", str(tmp_path / "o")]
    for dry in (["--dry-run"], []):
        result = runner.invoke(main, ["run", str(file), *args, *dry])
        assert result.exit_code in (1, 2), result.output
        assert said.format(tmp=tmp_path) in " ".join(result.output.split()), result.output
        assert "round 1" not in result.stdout and "games" not in result.stdout
    assert not (tmp_path / "o").exists()


def test_rounds_a_round_robin_ignores_are_a_warning_not_an_error(runner: CliRunner,
                                                                 tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL.replace("players_per_game: 4", "players_per_game: 2\nrounds: 7"))
    result = runner.invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"warning: {file}:4: 'rounds' has no effect: a round-robin at "
                             "tables of 2 plays every pair once, in 5 rounds (each table "
                             "'games_per_pairing' times)\n")
    assert result.stdout.strip().endswith("small: round-robin, 5 rounds, 40 games")


@pytest.mark.parametrize(("rating", "words"), [
    ("plackett-luce", "Plackett-Luce fit of whole placings"),
    ("bradley-terry", "Bradley-Terry fit of pairwise results")])
def test_the_rating_column_says_which_model_gave_it(runner: CliRunner, tmp_path: Path,
                                                    rating: str, words: str) -> None:
    # headed "Elo ±95%" whatever the model, and the report's note said Plackett-Luce
    file = tmp_path / "t.yaml"
    file.write_text(SMALL + f"rating: {rating}\n")
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    plain = [s.strip() for s in runner.invoke(main, ["standings", str(out)]).output.splitlines()]
    assert "rating ±95%" in plain[1] and "Elo" not in plain[1]
    assert f"rating: {words}, Elo scale, ±95%" in plain
    data = json.loads(runner.invoke(main, ["standings", str(out), "--format", "json"]).output)
    assert data["rating_models"] == {"elo": "openskill", "fit_elo": rating}
    assert runner.invoke(main, ["report", str(out)]).exit_code == 0
    page = (out / "report" / "index.html").read_text()
    note = page[page.index('data-testid="rating-note"'):]
    assert " ".join(note[:note.index("</p>")].split()).startswith(
        f'data-testid="rating-note">Rating: {words} (<code>rating: {rating}</code>), on the '
        "Elo scale")


def test_keys_a_builtin_bot_ignores_are_warnings(runner: CliRunner, tmp_path: Path) -> None:
    # found by an organiser's audit: `cwd: nodir` on a built-in bot passed without a word
    file = tmp_path / "t.yaml"
    file.write_text(SMALL + "  - {name: b5, cmd: 'builtin:random', cwd: nodir, "
                    "restart: per-game}\n  - name: b6\n    cmd: builtin:default\n"
                    "    network: true\n")
    result = runner.invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"warning: {file}:{line}: bot '{bot}': '{key}' has no effect: builtin:{policy} "
        "plays inside the referee, with no process"
        for line, bot, key, policy in [(11, "b5", "cwd", "random"),
                                       (11, "b5", "restart", "random"),
                                       (14, "b6", "network", "default")]]


@pytest.mark.parametrize(("options", "said"), [
    (["--resume", "--withdraw", "zz"], "--withdraw zz: no bot of that name in"),
    (["--resume", "--enter", "b1"], "--enter b1: only a Swiss takes a bot between rounds"),
], ids=["withdraw", "enter"])
def test_a_dry_run_checks_the_run_it_would_continue(runner: CliRunner, tmp_path: Path,
                                                    options: list[str], said: str) -> None:
    # found by an organiser's audit: the dry run of a resume that the run refuses printed
    # its schedule and succeeded
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    files = sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir())
    for dry in (["--dry-run"], []):
        result = runner.invoke(main, ["run", str(file), "--out", str(out), *options, *dry])
        assert result.exit_code == 1, result.output
        assert said in " ".join(result.output.split()), result.output
        assert "round 1" not in result.stdout
        if dry:  # it wrote nothing there, not even the run's lock
            assert sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir()) == files


def test_a_dry_run_over_a_played_run_says_the_run_needs_resume(runner: CliRunner,
                                                              tmp_path: Path) -> None:
    # the schedule is still shown: a dry run is also how to see a played file's schedule
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    said = f"{out} already holds 20 games of this tournament: add --resume"
    dry = runner.invoke(main, ["run", str(file), "--out", str(out), "--dry-run"])
    assert dry.exit_code == 0 and "round 1" in dry.stdout, dry.output
    assert f"note: {said}" in " ".join(dry.stderr.split())
    real = runner.invoke(main, ["run", str(file), "--out", str(out)])
    assert real.exit_code == 1 and said in " ".join(real.output.split()), real.output


def test_a_dry_run_of_a_resume_needs_the_run(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SMALL)
    out = tmp_path / "out"
    result = runner.invoke(main, ["run", str(file), "--out", str(out), "--resume",
                                  "--dry-run"])
    assert result.exit_code == 1 and not out.exists(), result.output
    assert f"{out} holds no run of 'small' to resume" in result.output
    plain = runner.invoke(main, ["run", str(file), "--out", str(out), "--resume",
                                 "--dry-run", "--withdraw", "b0"])
    assert plain.exit_code == 1 and "holds no run" in plain.output


@pytest.mark.parametrize(("first", "then"), [("rounds: 7\n", ""), ("", "rounds: 3\n")],
                         ids=["removed", "added"])
def test_a_rounds_that_changes_nothing_does_not_stop_a_resume(
        runner: CliRunner, tmp_path: Path, first: str, then: str) -> None:
    # its warning says it has no effect; removing it then made the run "another file's"
    file = tmp_path / "t.yaml"
    two = SMALL.replace("players_per_game: 4", "players_per_game: 2")
    file.write_text(first + two)
    out = tmp_path / "out"
    Runner(load_config(file), out, concurrency=1, referee=FakeReferee).run()
    file.write_text(then + two)
    resumed = Runner(load_config(file), out, concurrency=1, resume=True,
                     referee=FakeReferee).run()
    assert resumed.games == 40
    dry = runner.invoke(main, ["run", str(file), "--out", str(out), "--resume", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    # a key that does change the run is still refused, rounds or not
    file.write_text(then + two.replace("games_per_pairing: 4", "games_per_pairing: 2"))
    refused = runner.invoke(main, ["run", str(file), "--out", str(out), "--resume"])
    assert refused.exit_code == 1 and "games_per_pairing: 4 -> 2" in refused.output, \
        refused.output
