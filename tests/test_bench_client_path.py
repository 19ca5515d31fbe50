"""bench/client_path.py runs `arena.client.run` against a stand-in socket: a change to how
the client sends or ends (the compiled send, the freeze at shutdown) once broke it silently
(`make bench` is run by hand, not by the suite). One game, no busy work: it must still play
every request through the client and print its four figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_client_path_bench_plays_the_client_through() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "client_path.py"),
                           "--games", "1", "--busy", "0"],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[0].isdigit() and int(lines[0].split()[0]) > 0  # requests played
    for figure in ("frame in -> action out  cold", "frame in -> action out  warm",
                   "decode_message          cold", "decode_message          warm"):
        assert any(line.startswith(figure) for line in lines), done.stdout
