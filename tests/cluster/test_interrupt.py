"""Ctrl-C while `--cluster local:N` starts its workers: the run stops once they have
started, with the interrupted line and nothing from the workers, and plays no game."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from tests.conditions import PATIENCE_S, interruptible, wait_until
from tests.tournament.test_resume import alive

HERE = Path(__file__).resolve().parent


def test_ctrl_c_while_a_local_cluster_starts_stops_the_run(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 2\nseed: 3\nbots:\n"
                    + "".join(f"  - {{name: b{i}, cmd: 'builtin:random'}}\n" for i in range(3)))
    hold = tmp_path / "hold"
    hold.mkdir()
    os.mkfifo(hold / "release")
    # the test's end, open (read and write: it never blocks) until the run is over, so the
    # byte stays in the FIFO for the worker whenever it opens its end
    release = os.open(hold / "release", os.O_RDWR | os.O_NONBLOCK)
    env = {**os.environ, "HOLD_START": str(hold),
           "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
           "DASK_DISTRIBUTED__WORKER__PRELOAD": json.dumps(["hold_start"])}
    out = tmp_path / "out"
    # its own session: the SIGINT goes to the run's process group, as a terminal's would
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(file), "--out", str(out),
                            "--cluster", "local:1"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=interruptible,
                           start_new_session=True)
    try:
        wait_until(lambda: run.poll() is not None or list(hold.glob("worker-*")),
                   "the worker started")
        assert run.poll() is None, run.communicate()
        (worker,) = (int(p.name.split("-")[1]) for p in hold.glob("worker-*"))
        os.killpg(run.pid, signal.SIGINT)  # the worker still starting: the cluster too
        os.write(release, b"g")
        _, err = run.communicate(timeout=PATIENCE_S)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
        os.close(release)
    text = err.decode()
    assert run.returncode == 130, text
    assert "interrupted before this run's first game" in text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    with closing(sqlite3.connect(out / "results.sqlite")) as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    wait_until(lambda: not alive(worker), "the worker process ended")
