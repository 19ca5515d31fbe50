"""Counted nouns read as English: "1 game", "3 games", never "game(s)" (an organiser's
audit found "1 mismatch(es)", "1 problem(s)" and "1 bot(s)" in what arena printed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.words import count_of, plural


@pytest.mark.parametrize(("n", "noun", "said"), [
    (1, "game", "1 game"), (0, "game", "0 games"), (3, "game", "3 games"),
    (1, "mismatch", "1 mismatch"), (2, "mismatch", "2 mismatches"),
    (2, "more alarm", "2 more alarms"), (4, "active bot", "4 active bots"),
    (2, "entry", "2 entries"), (2, "day", "2 days"), (2, "box", "2 boxes"),
])
def test_count_of_makes_the_last_word_agree_with_the_count(n: int, noun: str,
                                                           said: str) -> None:
    assert count_of(n, noun) == said


def test_a_verb_agrees_too() -> None:
    assert (plural("was", 1), plural("was", 2), plural("is", 0)) == ("was", "were", "are")


def test_a_file_with_one_problem_says_one_problem(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 2\nbots:\n"
                    "  - {name: a, cmd: 'builtin:random'}\n")
    result = CliRunner().invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 1
    assert f"Error: 1 problem in tournament file {file}:" in result.output
    assert "1 bot cannot fill a table" in result.output
    assert "(s)" not in result.output
