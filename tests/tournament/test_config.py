"""Tournament files: valid files load; every problem is reported at once, with its line."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from arena.core.errors import ConfigError
from arena.referee.spec import Restart
from arena.tournament.config import Format, parse_config, preflight
from tests.tournament.fakes import toy_registry

GOOD = """\
name: club
game: toy
rules: {target: 12}
players_per_game: 3
format: swiss
rounds: 4
games_per_pairing: 2
time: {move_ms: 200, bank_ms: 1000, startup_ms: 3000}
faults: {max_faults: 2}
concurrency: 2
seed: 7
bots:
  - {name: a, cmd: "{python} -c pass"}
  - name: b
    cmd: [builtin:random]
    restart: per-game
    env: {LEVEL: 3}
  - {name: c, cmd: builtin:random}
"""


def parse(text: str) -> object:
    return parse_config(textwrap.dedent(text), "t.yaml", Path("/tmp"), toy_registry())


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse(text)
    return info.value.problems


def test_a_full_file_loads() -> None:
    config = parse_config(GOOD, "t.yaml", Path("/tmp"), toy_registry())
    assert config.name == "club" and config.game == "toy@1"
    assert config.rules == {"target": 12}
    assert config.table.size == 3 and config.table.smallest == 2
    assert config.format is Format.SWISS and config.rounds == 4
    assert config.time.move_ms == 200 and config.time.bank_ms == 1000
    assert config.faults.max_faults == 2 and config.seed == 7
    assert config.out == Path("runs/club")
    a, b, _ = config.bots
    assert a.cmd == (sys.executable, "-c", "pass") and a.cwd == "/tmp"
    assert b.restart is Restart.PER_GAME and b.env == {"LEVEL": "3"} and b.builtin == "random"


def test_fingerprint_ignores_out_and_concurrency_but_not_seed() -> None:
    base = parse_config(GOOD, "t.yaml", Path("/tmp"), toy_registry())
    moved = parse_config(GOOD.replace("concurrency: 2", "out: elsewhere"), "t.yaml",
                         Path("/tmp"), toy_registry())
    reseeded = parse_config(GOOD.replace("seed: 7", "seed: 8"), "t.yaml", Path("/tmp"),
                            toy_registry())
    assert base.fingerprint == moved.fingerprint != reseeded.fingerprint


def test_every_problem_is_reported_with_its_line() -> None:
    found = problems("""\
        name: club
        gaem: toy
        format: swis
        games_per_pairing: 0
        time: {move_ms: fast, bonus: 3}
        bots:
          - {name: a, cmd: "x"}
          - {name: a, cmd: "y"}
          - {name: "bad name", cmd: []}
        """)
    text = "\n".join(found)
    assert "t.yaml:2: unknown key 'gaem' in the tournament file (did you mean 'game'?)" in text
    assert "t.yaml:1: the tournament file is missing required key 'game'" in text
    assert "t.yaml:3: 'format': 'swis' is not valid (did you mean 'swiss'?)" in text
    assert "t.yaml:4: 'games_per_pairing' must be at least 1" in text
    assert "t.yaml:5: 'move_ms' must be an integer" in text
    assert "t.yaml:5: unknown key 'bonus' in 'time'" in text
    assert "t.yaml:8: bot name 'a' is already used on line 7" in text
    assert any(p.startswith("t.yaml:9: bot name 'bad name'") for p in found)
    assert any(p.startswith("t.yaml:9: bot 'bad name': 'cmd' must be") for p in found)
    assert len(found) >= 9


def test_game_table_size_and_rules_are_checked() -> None:
    found = problems("""\
        name: x
        game: toy
        players_per_game: 9
        rules: {targte: 3}
        bots: [{name: a, cmd: builtin:random}]
        """)
    assert any(p.startswith("t.yaml:3:") and "seats 2 to 6" in p for p in found)
    found = problems("""\
        name: x
        game: toy
        rules: {targte: 3}
        bots: [{name: a, cmd: builtin:random}, {name: b, cmd: builtin:random}]
        """)
    assert found == ["t.yaml:3: rules: unknown option 'targte' (did you mean 'target'?); "
                     "valid: target"]
    found = problems("name: x\ngame: tyo\nbots: [{name: a, cmd: builtin:random}]\n")
    assert any(p.startswith("t.yaml:2: unknown game 'tyo'") and "'toy'" in p for p in found)


def test_ranges_duplicates_and_yaml_errors() -> None:
    ok = parse("""\
        name: x
        game: toy
        players_per_game: 3-5
        bots: [{name: a, cmd: builtin:random}, {name: b, cmd: builtin:random},
               {name: c, cmd: builtin:random}]
        """)
    assert (ok.table.smallest, ok.table.size) == (3, 5)  # type: ignore[attr-defined]
    assert "t.yaml:2: key 'name' appears twice" in problems(
        "name: x\nname: y\ngame: toy\nbots: [{name: a, cmd: z}]\n")
    found = problems("name: x\ngame: toy\nbots: [\n  {name: a\n")
    assert len(found) == 1 and found[0].startswith("t.yaml:") and "not valid YAML" in found[0]
    assert problems("- just\n- a list\n") == [
        "t.yaml:1: a tournament file is a mapping of keys (name, game, bots, ...)"]


def test_swiss_needs_rounds_and_gauntlet_needs_challengers() -> None:
    bots = "bots: [{name: a, cmd: builtin:random}, {name: b, cmd: builtin:random}]\n"
    assert any("needs 'rounds'" in p for p in problems(f"name: x\ngame: toy\nformat: swiss\n"
                                                       f"{bots}"))
    found = problems(f"name: x\ngame: toy\nformat: gauntlet\nchallengers: [z]\n{bots}")
    assert any(p.startswith("t.yaml:4: challenger 'z' is not a bot") for p in found)


def test_preflight_reports_missing_commands_and_scripts(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_text("pass\n")
    config = parse_config(textwrap.dedent("""\
        name: x
        game: toy
        bots:
          - {name: ok, cmd: "{python} real.py"}
          - {name: gone, cmd: "no-such-program-xyz --fast"}
          - {name: typo, cmd: "{python} rael.py"}
          - {name: builtin, cmd: "builtin:random"}
        """), "t.yaml", tmp_path, toy_registry())
    with pytest.raises(ConfigError) as info:
        preflight(config)
    assert info.value.problems == [
        "t.yaml:5: bot 'gone': command 'no-such-program-xyz' not found",
        f"t.yaml:6: bot 'typo': file 'rael.py' not found in {tmp_path}",
    ]


def test_transport_is_ipc_by_default_tcp_on_request_and_not_in_the_fingerprint() -> None:
    ipc = parse_config(GOOD, "t.yaml", Path("/tmp"), toy_registry())
    tcp = parse_config(GOOD + "transport: tcp\n", "t.yaml", Path("/tmp"), toy_registry())
    assert (ipc.transport, tcp.transport) == ("ipc", "tcp")
    assert ipc.fingerprint == tcp.fingerprint  # how bots connect changes no result


def test_an_unknown_transport_names_its_line_and_the_valid_ones() -> None:
    found = problems(GOOD + "transport: udp\n")
    assert len(found) == 1
    assert "t.yaml:" in found[0] and "'udp' is not one of ipc, tcp" in found[0]
    line = int(found[0].split(":")[1])
    assert GOOD.count("\n") + 1 == line


def test_preflight_looks_up_the_program_behind_a_stdio_prefix(tmp_path: Path) -> None:
    text = GOOD.replace('"{python} -c pass"', '"stdio:{python} -c pass"')
    preflight(parse_config(text, "t.yaml", tmp_path, toy_registry()))
    missing = GOOD.replace('"{python} -c pass"', '"stdio:no-such-program-xyz"')
    with pytest.raises(ConfigError, match="command 'no-such-program-xyz' not found"):
        preflight(parse_config(missing, "t.yaml", tmp_path, toy_registry()))


def test_rating_chooses_a_registered_rater_and_is_not_in_the_fingerprint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.tournament import ratings
    from arena.tournament.settings import Settings
    from arena.tournament.store import GameKey
    from tests.tournament.test_accuracy import stored

    class Fixed:
        """A rater that rates every bot 1234 (to see that it is the one used)."""

        def fit(self, games: object) -> ratings.Fit:
            rated = {b: ratings.Rating(b, 1234.0, 1.0, 2.0) for b in ("a", "b", "c")}
            return ratings.Fit(rated, {}, 0, (("a", "b", "c"),))

    monkeypatch.setitem(ratings.RATERS, "fixed", Fixed)
    default = parse_config(GOOD, "t.yaml", Path("/tmp"), toy_registry())
    chosen = parse_config(GOOD + "rating: fixed\n", "t.yaml", Path("/tmp"), toy_registry())
    assert (default.rating, chosen.rating) == ("plackett-luce", "fixed")
    assert default.fingerprint == chosen.fingerprint  # it changes no game and no pairing
    game = stored(["a", "b", "c"], ("a", "b", "c"), GameKey(1, 0, 0))
    settings = Settings.from_json(Settings.of(chosen).to_json())  # as stored and read back
    assert {r.fit_elo for r in settings.standings([game], []).rows} == {1234.0}
    assert {r.fit_elo for r in Settings.of(default).standings([game], []).rows} != {1234.0}


def test_an_unknown_rating_names_its_line_and_the_registered_raters() -> None:
    found = problems(GOOD + "rating: glicko\n")
    assert found == [f"t.yaml:{GOOD.count(chr(10)) + 1}: rating 'glicko' is not one of "
                     "bradley-terry, plackett-luce"]


@pytest.mark.parametrize(("cmd", "argv"), [
    ("python bot.py", (sys.executable, "bot.py")),
    ("python3 -u bot.py", (sys.executable, "-u", "bot.py")),
    ("stdio:python bot.py", (f"stdio:{sys.executable}", "bot.py")),
    ("{python} bot.py python", (sys.executable, "bot.py", "python")),  # the first word only
    ("/usr/bin/python3 bot.py", ("/usr/bin/python3", "bot.py")),  # a Python of one's own
    ("pythonista bot.py", ("pythonista", "bot.py")),
])
def test_a_leading_python_is_arenas_as_in_arena_play(cmd: str, argv: tuple[str, ...]) -> None:
    """The `python` on an organiser's PATH (a pyenv shim) cannot run in the sandbox: every
    bot of a file written `python bot.py` passed its checks, then forfeited."""
    from arena.cli.play import parse_bot
    from arena.ladder.config import expand_cmd

    text = GOOD.replace('"{python} -c pass"', f'"{cmd}"')
    config = parse_config(text, "t.yaml", Path("."), toy_registry())
    assert config.bots[0].cmd == argv
    assert parse_bot(f"a={cmd}").cmd == argv
    assert expand_cmd(cmd.split()) == argv  # a ladder's stored command


def test_preflight_finds_a_script_without_suffix_and_a_program_not_executable(
        tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mybot").write_text("pass\n")
    (tmp_path / "noexec.sh").write_text("echo hi\n")
    (tmp_path / "shiny").write_text("#!/bin/sh\n")
    (tmp_path / "shiny").chmod(0o755)
    config = parse_config(textwrap.dedent("""\
        name: x
        game: toy
        bots:
          - {name: ok, cmd: "{python} bots/mybot"}
          - {name: gone, cmd: "{python} bots/mybott --level 2"}
          - {name: noexec, cmd: "./noexec.sh"}
          - {name: module, cmd: "{python} -m bots"}
          - {name: shiny, cmd: "./shiny fast"}
        """), "t.yaml", tmp_path, toy_registry())
    with pytest.raises(ConfigError) as info:
        preflight(config)
    assert info.value.problems == [
        f"t.yaml:5: bot 'gone': file 'bots/mybott' not found in {tmp_path}",
        "t.yaml:6: bot 'noexec': './noexec.sh' is not executable (chmod +x it)",
    ]


def test_a_dry_run_checks_the_bots_commands(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 2\nbots:\n"
                    "  - {name: a, cmd: 'builtin:random'}\n  - {name: b, cmd: 'pyhton3 x.py'}\n")
    result = CliRunner().invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 1
    assert "bot 'b': command 'pyhton3' not found" in " ".join(result.output.split())


def test_messages_an_organiser_met_say_what_the_file_asked() -> None:
    """Found by an organiser: 'cannot fill a table of 3' when he asked for 4, a name said to
    have spaces when it had an accented letter, points for 2 places of 4 accepted, and
    PyYAML's words alone for a wrong indentation."""
    few = GOOD.replace("players_per_game: 3", "players_per_game: 5")
    assert any("3 bots cannot fill a table: 'players_per_game' 5 needs at least 4 "
               "(a table may be a seat short)" in p for p in problems(few))
    accented = GOOD.replace("{name: c, cmd", "{name: émile, cmd")
    assert any("must be ASCII letters" in p for p in problems(accented))
    short = GOOD + "points: [3, 2]\n"
    assert any("'points' gives 2 places; tables of 3 need 3" in p for p in problems(short))
    indented = GOOD.replace("seed: 7\n", "seed: 7\n  concurrency: 3\n")
    found = problems(indented)
    assert len(found) == 1 and "indented unlike the lines around it" in found[0], found


def test_a_run_reports_the_files_problems_and_its_commands_at_once(tmp_path: Path) -> None:
    """Found by an organiser: fixing the 4 problems reported only revealed 6 more (the
    commands, checked once the rest was right)."""
    from arena.tournament.config import load_config

    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 2\nsede: 3\nbots:\n"
                    "  - {name: a, cmd: 'pyhton3 x.py'}\n  - {name: b, cmd: 'builtin:randm'}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(file, commands=True)
    found = " | ".join(caught.value.problems)
    assert "sede" in found and "command 'pyhton3' not found" in found
    assert "unknown built-in bot 'builtin:randm'" in found
    with pytest.raises(ConfigError) as alone:
        load_config(file)  # without: the file's own problems (the commands are preflight's)
    assert "pyhton3" not in " ".join(alone.value.problems)


@pytest.mark.parametrize("bots", ["", "bots: []\n", "bots:\n", "bots: ~\n"])
@pytest.mark.parametrize(("fmt", "needs"), [
    ("round-robin", "a round-robin at tables of 3 needs at least 2 bots (a table may be a "
                    "seat short)"),
    ("swiss", "a swiss tournament at tables of 3 needs at least 2 bots (a table may be a "
              "seat short)"),
    ("gauntlet", "a gauntlet at tables of 3 needs its challengers and at least 1 bot "
                 "besides them (a table may be a seat short)"),
])
def test_a_file_without_bots_is_one_line_saying_what_its_format_needs(
        bots: str, fmt: str, needs: str) -> None:
    """Found by an organiser's audit: `bots:` left empty ran a tournament of 0 games, and
    a gauntlet's challengers were then 'not a bot'."""
    extra = {"swiss": "rounds: 3\n", "gauntlet": "challengers: [a]\n"}.get(fmt, "")
    text = f"name: x\ngame: toy\nplayers_per_game: 3\nformat: {fmt}\n{extra}{bots}"
    what = "'bots' lists no bot" if bots else \
        "the tournament file is missing required key 'bots'"
    line = text.count("\n") if bots else 1
    assert problems(text) == [f"t.yaml:{line}: {what}: {needs}"]


def test_a_gauntlets_field_too_small_for_a_table_is_refused() -> None:
    # three bots at tables of 4, two of them challengers: a table is a challenger and the
    # field, so the run had 0 games
    found = problems("""\
        name: x
        game: toy
        players_per_game: 4
        format: gauntlet
        challengers: [a, b]
        bots: [{name: a, cmd: builtin:random}, {name: b, cmd: builtin:random},
               {name: c, cmd: builtin:random}]
        """)
    assert found == ["t.yaml:5: a gauntlet at tables of 4 needs its challengers and at least "
                     "2 bots besides them (a table may be a seat short); its field has 1 bot "
                     "(c)"]


def test_every_problem_of_a_bot_names_the_bot() -> None:
    """Found by an organiser's audit: "bot name None must be ...", and a bot's bad option
    said without the bot ("restart 'sometimes' is not valid"), in a file of many bots; a
    name used twice went unsaid when its first bot had another problem."""
    found = problems("""\
        name: x
        game: toy
        bots:
          - {name: alice, cmd: "builtin:random", restart: sometimes}
          - {name: bob, cmd: "builtin:random", env: [1], colour: red}
          - {name: carol, cmd: "builtin:random", network: maybe, cwd: 3}
          - {cmd: "builtin:random"}
          - {name: dave}
          - {name: erin, cmd: ""}
          - {name: alice, cmd: "builtin:random"}
          - just-a-string
        """)
    assert found == [
        "t.yaml:4: bot 'alice': 'restart' 'sometimes' is not valid; valid: never, per-game",
        "t.yaml:5: bot 'bob': 'env' must map names to strings",
        "t.yaml:5: unknown key 'colour' in bot 'bob'; valid: name, cmd, cwd, env, restart, "
        "network",
        "t.yaml:6: bot 'carol': 'cwd' must be a directory path",
        "t.yaml:6: bot 'carol': 'network' must be true or false, not 'maybe'",
        "t.yaml:7: a bot without a 'name' (cmd 'builtin:random'): each bot needs a unique "
        "name of ASCII letters, digits, '_', '.', '+' or '-', beginning with a letter or "
        "digit, at most 100 characters (it names files and command-line arguments)",
        "t.yaml:8: bot 'dave': no 'cmd': it needs a command string or a non-empty list of "
        "strings",
        "t.yaml:9: bot 'erin': 'cmd' must be a command string or a non-empty list of strings",
        "t.yaml:10: bot name 'alice' is already used on line 4",
        "t.yaml:11: each bot is a mapping with 'name' and 'cmd', not 'just-a-string'",
    ]
    assert not [p for p in found if "None" in p]


@pytest.mark.parametrize(("head", "bots", "why"), [
    ("players_per_game: 2\n", 5, "a round-robin at tables of 2 plays every pair once, in 5 "
                                 "rounds"),
    ("players_per_game: 2\n", 4, "a round-robin at tables of 2 plays every pair once, in 3 "
                                 "rounds"),
    ("players_per_game: 4\n", 4, "the 4 bots fit one table, the whole round-robin"),
    ("players_per_game: 4\n", 3, "the 3 bots fit one table, the whole round-robin"),
    ("format: gauntlet\nchallengers: [b0]\n", 4, "a gauntlet plays each challenger against "
                                                 "the whole field, in as many rounds as that "
                                                 "takes"),
    ("players_per_game: 3\n", 6, None),  # a design of 7 rounds
    ("players_per_game: 2-3\n", 5, None),
    ("format: swiss\n", 4, None),
    ("format: swiss\nplayers_per_game: 4\n", 4, None),  # 7 rounds of one table
], ids=["2-seats-odd", "2-seats-even", "one-table", "one-short-table", "gauntlet",
        "design", "range", "swiss", "swiss-one-table"])
def test_rounds_that_change_nothing_are_a_warning_at_their_line(
        head: str, bots: int, why: str | None) -> None:
    """Found by an organiser's audit: 'rounds: 7' on a round-robin of two seats, or on a
    gauntlet, played another number of rounds without a word."""
    names = "".join(f"  - {{name: b{i}, cmd: builtin:random}}\n" for i in range(bots))
    config = parse(f"name: x\ngame: toy\n{head}rounds: 7\nbots:\n{names}")
    line = head.count("\n") + 3
    expected = () if why is None else (
        f"t.yaml:{line}: 'rounds' has no effect: {why} (each table 'games_per_pairing' "
        "times)",)
    assert config.warnings == expected  # type: ignore[attr-defined]
    unset = parse(f"name: x\ngame: toy\n{head.replace('swiss', 'round-robin')}bots:\n{names}")
    assert unset.warnings == ()  # type: ignore[attr-defined]
