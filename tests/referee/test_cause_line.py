"""The line of a bot's last output that says why it ended, shown when it could not start:
an error's message sits above its stack, and some runtimes print a banner last."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.referee.roster import cause_line, log_tail

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
