"""Fixtures of the referee's tests."""

from __future__ import annotations

import subprocess

import pytest

from arena.referee.sandbox import Launch, probe_bwrap
from tests.security.zoo import need_bwrap


@pytest.fixture(scope="module")
def bwrap() -> str:
    """The bubblewrap executable (a skip without it, a failure when CI=true)."""
    need_bwrap()
    path, _ = probe_bwrap()
    assert path is not None
    return path


def sandboxed_output(launch: Launch) -> str:
    """What a launched bot prints (stripped), asserting that it exited with status 0."""
    with launch.spawn() as (argv, fds):
        done = subprocess.run(argv, env=launch.env, cwd=launch.cwd, capture_output=True,
                              text=True, check=False, pass_fds=fds)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()
