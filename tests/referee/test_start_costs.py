"""What starting a Python bot costs stays small (no import a function bot does not use), and
what a worker spends besides its games stays flat: the limits of a bot are read only while
a game waits on it (and at most every `READ_LIMITS_S`), each bot's own directories are
resolved once per referee, and stopping a sandboxed bot scans no process table."""

from __future__ import annotations

import functools
import gc
import inspect
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena import client
from arena.protocol import GameOver, Shutdown, encode
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl, process, roster
from arena.referee import referee as referee_module
from arena.referee.roster import READ_LIMITS_S, RosterBot
from arena.referee.sandbox import SandboxMode, SandboxPolicy, own_dirs

RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random_bot.py"


class Counters:
    """Stands for a bot's process: only the limits counters `over_limit` reads."""

    def __init__(self) -> None:
        self.reads = 0
        self.hit: str | None = None

    def breach(self) -> str | None:
        self.reads += 1
        return self.hit


def test_a_bots_limits_are_read_at_most_every_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(roster, "time", SimpleNamespace(monotonic=lambda: now[0]))
    counters = Counters()
    bot = RosterBot(BotSpec("b", ("bot",)), process=counters)  # type: ignore[arg-type]
    assert bot.over_limit() is None and bot.over_limit() is None
    assert counters.reads == 1
    now[0] += READ_LIMITS_S
    counters.hit = "processes: tried to run more than 32 processes/threads"
    assert bot.over_limit() == counters.hit
    now[0] += 10 * READ_LIMITS_S
    assert bot.over_limit() == counters.hit  # a limit hit is kept, not read again
    assert counters.reads == 2


def test_stopping_an_untracked_bot_scans_no_process_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def scan() -> dict[int, tuple[int, str]]:
        raise AssertionError("the process table was read")

    monkeypatch.setattr(process, "_process_table", scan)
    process._kill_seen({})


def test_each_bots_own_directories_are_resolved_once(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    resolved: list[tuple[str, ...]] = []

    def counted(argv: Sequence[str], cwd: str | None) -> Any:
        resolved.append(tuple(argv))
        return own_dirs(argv, cwd)

    monkeypatch.setattr(referee_module, "own_dirs", counted)
    bots = [BotSpec(f"r{i}", (sys.executable, str(RANDOM_BOT))) for i in range(3)]
    with Referee(bots, TimeControl(startup_ms=20_000), FaultPolicy(), tmp_path,
                 sandbox=SandboxPolicy(SandboxMode.NONE)) as referee:
        assert all(referee.versions().values())  # all three started and said hello
    assert len(resolved) == 3  # one per bot, not one per bot for each start


def test_a_python_bot_imports_neither_the_records_nor_argparse_nor_pyzmq() -> None:
    # each is CPU at every Python bot's start; a bot started by the referee needs none
    # (pyzmq and socket: ~15 ms, arena/_zmtp.py)
    code = ("import sys, arena.client; print(sorted(m for m in ('dataclasses', 'argparse', "
            "'arena.core.game', 'arena.core.record', 'zmq', 'socket') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_function_bot_starts_without_inspect() -> None:
    # inspect (ast, dis, tokenize) is ~10-20 ms of CPU at a start; msgspec imports it too
    # through typing_extensions where that is installed (not a dependency of arena's), so
    # the check hides typing_extensions, as on an install without the test tools
    code = ("import sys; sys.modules['typing_extensions'] = None\n"
            "import arena.client\n"
            "arena.client._FunctionBot(lambda request, rng: None)\n"
            "print('inspect' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


class _Callable:
    def __call__(self, request: object, rng: object) -> None:
        return None


class _Methods:
    def act(self, request: object) -> None:
        return None

    def varargs(*args: object) -> None:
        return None

    @classmethod
    def by_class(cls, request: object, rng: object = None) -> None:
        return None


def _one(request: object) -> None:
    return None


def _two(request: object, rng: object, /, *more: object, key: int = 0) -> None:
    return None


@functools.wraps(_one)
def _wrapping(*args: object) -> None:
    return None


@pytest.mark.parametrize("fn", [
    _one, _two, _wrapping, lambda r, g: None, lambda *a: None, _Callable(), _Methods().act,
    _Methods().varargs, _Methods.by_class, functools.partial(_two, 1), print, len])
def test_positional_count_agrees_with_inspect(fn: Callable[..., object]) -> None:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    try:
        expected = sum(p.kind in kinds for p in inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        expected = 1
    assert client._positional_count(fn) == expected


class _Frames:
    """Stands for the bot's socket: hands out referee frames, notes the collector's state."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames, self.frozen_while_playing = frames, 0

    def recv(self) -> bytes:
        self.frozen_while_playing = max(self.frozen_while_playing, gc.get_freeze_count())
        return self.frames.pop(0)

    def send(self, frame: bytes) -> None:
        return None

    def close(self, linger: int | None = None) -> None:
        return None


def test_a_bot_freezes_its_objects_for_the_exit_only_after_shutdown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the interpreter's exit then skips them: ~12 ms of CPU less at every bot's end
    frames = _Frames([encode(GameOver(seat=0, termination="completed", placings=[1, 2],
                                      scores=[3, 1], forfeited=[], events=[])),
                      encode(Shutdown(reason="done"))])
    monkeypatch.setattr(client, "open_link", lambda *args: (frames, None))
    gc.unfreeze()
    try:
        client.run(lambda request: None, name="frozen")
        assert frames.frozen_while_playing == 0 and not frames.frames
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
