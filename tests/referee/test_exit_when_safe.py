"""A worker SIGTERMed while it starts a bot exits once the start is over: the SystemExit its
handler raised inside the fork's after-fork hooks was printed as "Exception ignored" and
lost (a compare stopped on a broken bot, its workers stopped as one restarted it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.referee import process
from arena.referee.process import BotProcess, exit_when_safe, stop_all


def test_outside_a_start_the_exit_is_at_once() -> None:
    with pytest.raises(SystemExit) as caught:
        exit_when_safe(143)
    assert caught.value.code == 143


def test_a_signal_during_the_fork_exits_once_the_process_is_ours(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = subprocess.Popen
    started: list[subprocess.Popen[bytes]] = []

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        exit_when_safe(143)  # what the handler does, the signal arriving mid-start
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(SystemExit) as caught:
        BotProcess("b", [sys.executable, "-c", "import signal; signal.pause()"], {}, None,
                   tmp_path / "b.log", 1 << 16)
    monkeypatch.undo()
    assert caught.value.code == 143
    assert started and started[0].poll() is None  # started, and among those to stop
    live = [p for p in process._LIVE if p.pid == started[0].pid]
    assert live
    stop_all(live, 0.0)
    assert started[0].wait() is not None
