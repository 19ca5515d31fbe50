"""A bot given on the command line (`arena play --bot`, `arena compare --candidate`)
reads as a tournament file's `cmd` does: `{python}` is the Python running arena."""

from __future__ import annotations

import sys

import click
import pytest

from arena.cli.play import parse_bot


@pytest.mark.parametrize(("text", "argv"), [
    ("a={python} bots/a.py", (sys.executable, "bots/a.py")),
    ("a=python bots/a.py", (sys.executable, "bots/a.py")),
    ("a=python3 -u bots/a.py", (sys.executable, "-u", "bots/a.py")),
    ("a=./bot --py {python}", ("./bot", "--py", sys.executable)),
    ("a=node bot.js", ("node", "bot.js")),
])
def test_a_bot_on_the_command_line(text: str, argv: tuple[str, ...]) -> None:
    spec = parse_bot(text)
    assert spec.name == "a" and spec.cmd == argv


def test_a_bot_that_is_not_name_equals_command_is_refused() -> None:
    with pytest.raises(click.BadParameter, match="is not NAME=CMD"):
        parse_bot("{python} bots/a.py")
