"""The benches refuse a bad argument in one line (argparse's usage error) instead of a
traceback or a run that never ends (found by an audit: `--dispatch -3` looped forever,
`--emulate 0` started a run of no workers, `--help` raised ValueError)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize(("script", "args", "words"), [
    ("tournament.py", ["--dispatch", "-3"], "-3 is not at least 1"),
    ("tournament.py", ["--emulate", "0"], "0 is not at least 1"),
    ("tournament.py", ["--starts", "0", "0"], "0 is not at least 1"),
    ("tournament.py", ["--scaling", "1", "a,b"], "'a' is not a whole number"),
    ("tournament.py", ["--emulate", "1", "2", "3"], "at most 2 values"),
    ("tournament.py", ["--bogus"], "unrecognized arguments: --bogus"),
    ("rummy.py", ["-1", "-1", "-1"], "-1 is not at least 1"),
    ("protocol.py", ["--games", "0"], "0 is not at least 1"),
])
def test_a_bad_argument_is_one_usage_line(script: str, args: list[str], words: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert words in done.stderr.splitlines()[-1]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("script", ["tournament.py", "rummy.py", "protocol.py"])
def test_help_says_how_to_run_it(script: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), "--help"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.startswith("usage:")
