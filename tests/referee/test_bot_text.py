"""A bot's own text as arena shows it: the line of its last output that says why it ended
(an error's message sits above its stack, and some runtimes print a banner last), and
nothing a terminal would obey (a hostile bot's log or version could clear the screen)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.roster import VERSION_CHARS, cause_line, log_tail, printable

NODE = """node:internal/modules/cjs/loader:1143
  throw err;
  ^

Error: Cannot find module '/tmp/bot.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1140:15)
    at Module._load (node:internal/modules/cjs/loader:981:27)
    at node:internal/main/run_main_module:23:47 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2"""
PYTHON = """[arena game r1-t0-g0 starts]
Traceback (most recent call last):
  File "/bots/x/bot.py", line 3, in <module>
    open("weights.bin")
FileNotFoundError: [Errno 2] No such file or directory: 'weights.bin'"""
RUST = """thread 'main' panicked at src/main.rs:4:10:
called `Result::unwrap()` on an `Err` value: Os { code: 2 }
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"""


@pytest.mark.parametrize(("output", "cause"), [
    (NODE, "Error: Cannot find module '/tmp/bot.js'"),
    (PYTHON, "FileNotFoundError: [Errno 2] No such file or directory: 'weights.bin'"),
    (RUST, "thread 'main' panicked at src/main.rs:4:10: called `Result::unwrap()` on an "
           "`Err` value: Os { code: 2 }"),
    ("starting\nbye", "bye"),  # nothing reads as a cause: the last line
    ("[arena game g1 starts]\n\n", ""),
])
def test_the_cause_is_the_last_line_naming_one(output: str, cause: str) -> None:
    assert cause_line(output.splitlines()) == cause


def test_the_tail_shown_leads_with_a_cause_further_up(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text(NODE + "\n")
    shown = [line.removeprefix("    | ") for line in log_tail(log, lines=3).splitlines()[1:]]
    assert shown == ["Error: Cannot find module '/tmp/bot.js'", "...", "}", "Node.js v20.20.2"]
    log.write_text(PYTHON + "\n")  # the cause among the last lines: shown once
    assert log_tail(log, lines=3).count("FileNotFoundError") == 1


def test_printable_escapes_what_a_terminal_obeys() -> None:
    assert printable("\x1b[2J\x07GARBAGE") == "\\x1b[2J\\x07GARBAGE"
    assert printable("tab\tand é ✓") == "tab\tand é ✓"  # text stays text
    assert printable("\u202eevil") == "\\u202eevil"  # a direction override too
    assert printable("v" * 100, 10) == "v" * 10


def test_a_log_shown_in_an_error_cannot_drive_the_terminal(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text("\x1b[2J\x1b[31mError: gone\x07\n")
    shown = log_tail(log)
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b[2J\\x1b[31mError: gone\\x07" in shown


VERSION_BOT = ("from arena.client import run\n"
               "run(lambda request: request.options[0], name='x',\n"
               "    version='\\x1b[2J' + 'v' * 500)\n")


def test_a_bots_stated_version_is_kept_short_and_printable(tmp_path: Path) -> None:
    """The version of a bot's hello is stored with every game and shown in every table."""
    script = tmp_path / "bot.py"
    script.write_text(VERSION_BOT)
    bots = (BotSpec("odd", (sys.executable, str(script))), BotSpec("b", ("builtin:random",)))
    with Referee(bots, TimeControl(move_ms=20_000, startup_ms=60_000), FaultPolicy(),
                 tmp_path / "work") as referee:
        record = referee.play("machiavelli", {}, 1, ["odd", "b"])
    version = record.seats[0].version
    assert version == printable("\x1b[2J" + "v" * 500, VERSION_CHARS)
    assert version.startswith("\\x1b[2J") and version.count("v") == VERSION_CHARS - len("\x1b[2J")
