"""Bad tournament files are refused with one line per problem, before anything is built:
alias bombs, schedules too large to run, seeds out of range, names that are paths, bytes
that are not UTF-8."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from arena.core.errors import ConfigError
from arena.tournament.config import (
    DEFAULT_MAX_GAMES,
    MAX_GAMES,
    Format,
    TableSize,
    count_games,
    load_config,
    parse_config,
)
from arena.tournament.pairing import History, gauntlet, round_robin, swiss_round
from arena.tournament.yamlpos import MAX_NODES
from tests.tournament.fakes import toy_registry

BOTS = "bots:\n" + "".join(f"  - {{name: b{i}, cmd: 'builtin:random'}}\n" for i in range(4))


def parse(text: str, base: Path = Path("/tmp")) -> object:
    return parse_config(textwrap.dedent(text), "t.yaml", base, toy_registry())


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse(text)
    return info.value.problems


def alias_bomb(levels: int) -> str:
    lines = ["name: lol", "game: toy", BOTS.rstrip("\n"), 'a0: &a0 ["lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_at_the_alias_that_crosses_the_bound() -> None:
    found = problems(alias_bomb(9))  # 3 * 9**8 = 129 million strings once expanded
    assert len(found) == 1
    # a4 expands to 27,064 values: the third *a4 on line 13 (a5) crosses 100,000
    assert found[0].startswith("t.yaml:13: not valid YAML: alias *a4 makes the document "
                               f"larger than {MAX_NODES:,} values")


def test_ordinary_aliases_still_work() -> None:
    config = parse("""\
        name: x
        game: toy
        bots:
          - {name: a, cmd: builtin:random, env: &common {LEVEL: "3", MODE: fast}}
          - {name: b, cmd: builtin:random, env: *common}
        """)
    assert [b.env for b in config.bots] == [{"LEVEL": "3", "MODE": "fast"}] * 2  # type: ignore[attr-defined]


def test_a_recursive_alias_and_deep_nesting_are_refused_with_a_line() -> None:
    found = problems("name: x\ngame: toy\nrules: &r {target: [1, *r]}\n" + BOTS)
    assert found == ["t.yaml:3: not valid YAML: alias *r is used inside its own anchor "
                     "(a recursive document)"]
    found = problems("name: x\nrules: " + "[" * 5000 + "]" * 5000 + "\n")
    assert len(found) == 1 and "nested too deeply" in found[0]


def test_a_huge_schedule_is_refused_with_its_size_and_how_to_confirm_it() -> None:
    found = problems(f"name: x\ngame: toy\ngames_per_pairing: 1000000000\n{BOTS}")
    # 4 bots in 2-seat tables: 6 pairs, each played 10**9 times
    assert found == ["t.yaml:3: this tournament has 6,000,000,000 games; arena runs at most "
                     f"{MAX_GAMES:,} in one tournament: check 'games_per_pairing' and 'rounds'"]
    found = problems(f"name: x\ngame: toy\nformat: swiss\nrounds: 100000\n{BOTS}")
    assert found == ["t.yaml:4: this tournament has 200,000 games, more than "
                     f"{DEFAULT_MAX_GAMES:,}: check 'games_per_pairing' and 'rounds', or "
                     "confirm a run this large with 'max_games: 200000'"]
    confirmed = parse(f"name: x\ngame: toy\nformat: swiss\nrounds: 100000\n"
                      f"max_games: 200000\n{BOTS}")
    assert confirmed.rounds == 100000  # type: ignore[attr-defined]
    found = problems(f"name: x\ngame: toy\ngames_per_pairing: 10\nmax_games: 50\n{BOTS}")
    assert found == ["t.yaml:4: this tournament has 60 games, more than 'max_games': 50"]
    found = problems(f"name: x\ngame: toy\nmax_games: {MAX_GAMES + 1}\n{BOTS}")
    assert found == [f"t.yaml:3: 'max_games' must be at most {MAX_GAMES:,}, not "
                     f"{MAX_GAMES + 1:,}"]


def test_max_games_changes_no_result() -> None:
    plain = parse(f"name: x\ngame: toy\n{BOTS}")
    capped = parse(f"name: x\ngame: toy\nmax_games: 10\n{BOTS}")
    assert plain.fingerprint == capped.fingerprint  # type: ignore[attr-defined]


@pytest.mark.parametrize(("fmt", "bots", "size", "smallest", "rounds", "repeats"), [
    (Format.ROUND_ROBIN, 7, 2, 2, None, 3),
    (Format.ROUND_ROBIN, 6, 4, 3, None, 2),    # every 4-subset
    (Format.ROUND_ROBIN, 12, 4, 3, None, 1),   # 495 subsets: a balanced design
    (Format.ROUND_ROBIN, 9, 4, 3, 5, 2),       # rounds given
    (Format.ROUND_ROBIN, 3, 4, 3, None, 4),    # fewer bots than seats
    (Format.ROUND_ROBIN, 2, 4, 3, None, 4),    # too few for a table
    (Format.GAUNTLET, 8, 3, 3, None, 2),       # every pair of the field
    (Format.GAUNTLET, 30, 4, 4, None, 1),      # a large field, dealt into groups
    (Format.GAUNTLET, 2, 4, 4, None, 1),       # too small a field
])
def test_the_game_count_matches_the_schedule_built(fmt: Format, bots: int, size: int,
                                                   smallest: int, rounds: int | None,
                                                   repeats: int) -> None:
    names = [f"b{i}" for i in range(bots)]
    if fmt is Format.GAUNTLET:
        plans = gauntlet(names[:2], names[2:], size, smallest, repeats, 7)
    else:
        plans = round_robin(names, size, smallest, repeats, 7, rounds)
    built = sum(len(table.seatings) for plan in plans for table in plan.tables)
    challengers = 2 if fmt is Format.GAUNTLET else 0
    assert count_games(fmt, bots, TableSize(size, smallest), rounds, repeats,
                       challengers) == built


def test_the_swiss_game_count_is_rounds_times_a_round() -> None:
    names = [f"b{i}" for i in range(11)]
    plan = swiss_round(1, names, History(), 4, 3, 2)
    games = sum(len(table.seatings) for table in plan.tables)
    assert count_games(Format.SWISS, 11, TableSize(4, 3), 6, 2) == 6 * games


def test_seed_counts_and_time_limits_are_bounded() -> None:
    found = problems(f"""\
name: x
game: toy
seed: {2**63}
concurrency: 100000
time: {{move_ms: 100000000000, bank_ms: 100000000000, startup_ms: 100000000000}}
faults: {{max_faults: 3}}
{BOTS}""")
    assert found == [
        f"t.yaml:3: 'seed' must be from 0 to 2**63 - 1, not {2**63}",
        "t.yaml:4: 'concurrency' must be at most 1,024, not 100,000",
    ] + [f"t.yaml:5: '{key}' must be at most 86,400,000, not 100,000,000,000"
         for key in ("bank_ms", "move_ms", "startup_ms")]
    assert problems(f"name: x\ngame: toy\nseed: -1\n{BOTS}") == [
        "t.yaml:3: 'seed' must be from 0 to 2**63 - 1, not -1"]
    assert parse(f"name: x\ngame: toy\nseed: {2**63 - 1}\n{BOTS}").seed == 2**63 - 1  # type: ignore[attr-defined]


def test_points_must_be_finite_numbers() -> None:
    found = problems(f"name: x\ngame: toy\npoints: [1, .nan]\nbye_points: .inf\n{BOTS}")
    assert found == ["t.yaml:3: 'points' must be a list of numbers by placing, e.g. [3, 1, 0, 0]",
                     "t.yaml:4: 'bye_points' must be a number, not inf"]


@pytest.mark.parametrize("name", ["../../..", "..", ".", "a/b", "/etc", "a\\b", " x",
                                  "tab\there", "x" * 101])
def test_a_name_that_is_not_a_plain_file_name_is_refused(name: str) -> None:
    found = problems(f"name: {json.dumps(name)}\ngame: toy\n{BOTS}")  # JSON is YAML
    assert len(found) == 1 and found[0].startswith("t.yaml:1: 'name'")
    assert "must be a plain file name" in found[0]


def test_out_in_the_file_is_relative_to_the_file_and_the_default_to_the_cwd() -> None:
    base = Path("/srv/club/tournaments")
    assert parse(f"name: Club Night 2024\ngame: toy\n{BOTS}", base).out == Path(  # type: ignore[attr-defined]
        "runs/Club Night 2024")
    assert parse(f"name: x\ngame: toy\nout: ../runs/x\n{BOTS}", base).out == Path(  # type: ignore[attr-defined]
        "/srv/club/tournaments/../runs/x")
    assert parse(f"name: x\ngame: toy\nout: /data/x\n{BOTS}", base).out == Path("/data/x")  # type: ignore[attr-defined]


def test_a_file_that_is_not_utf8_names_its_line_and_byte_offset(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_bytes(b"name: x\ngame: toy\n# caf\xe9\n" + BOTS.encode())
    with pytest.raises(ConfigError) as info:
        load_config(file, toy_registry())
    assert str(info.value) == (f"{file}:3: not UTF-8 text: byte 0xe9 at byte offset 23; "
                               "save the file as UTF-8")
