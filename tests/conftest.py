"""Shared fixtures, and the rule for the toolchain tests.

Tests marked `toolchain` build and run the starter bots in five other languages: minutes
on a fresh machine. A plain `pytest` leaves them out (a developer's quick run stays
quick); they run when CI=true (every CI run shows "any language" works, and a missing
toolchain fails there, see tests/polyglot/starters.py), when ARENA_TOOLCHAINS=1 (as
`make test` and `make stress-test` set it), or when asked for with `-m toolchain`.
"""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

_LEFT_OUT = pytest.StashKey[int]()


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def toolchains_wanted(config: pytest.Config) -> bool:
    """Whether this run includes the toolchain tests."""
    if os.environ.get("CI", "").lower() == "true" or os.environ.get("ARENA_TOOLCHAINS") == "1":
        return True
    return "toolchain" in (config.option.markexpr or "")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if toolchains_wanted(config):
        return
    left_out = [item for item in items if item.get_closest_marker("toolchain")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not item.get_closest_marker("toolchain")]
    config.stash[_LEFT_OUT] = len(left_out)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    left_out = config.stash.get(_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} toolchain test(s) left out: run them with ARENA_TOOLCHAINS=1, "
            "-m toolchain, or make test")
