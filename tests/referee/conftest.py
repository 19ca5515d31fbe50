"""Fixtures of the referee's tests."""

from __future__ import annotations

import pytest

from arena.referee.sandbox import probe_bwrap
from tests.security.zoo import need_bwrap


@pytest.fixture(scope="module")
def bwrap() -> str:
    """The bubblewrap executable (a skip without it, a failure when CI=true)."""
    need_bwrap()
    path, _ = probe_bwrap()
    assert path is not None
    return path
