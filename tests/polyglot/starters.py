"""The starter bots outside Python: how to build, test and start each one.

A missing toolchain skips a test with the reason, except under CI=true, where it fails:
"any language" must be shown on every CI run, not silently skipped. (A plain local
`pytest` leaves the toolchain tests out altogether; see tests/conftest.py.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "sample_bots"
MAKEFILE = BOTS / "toolchains.mk"
BUILD_TIMEOUT_S = 45 * 60
"""A first Rust or Maven build on a fresh 2-core machine downloads and compiles for minutes."""


@dataclass(frozen=True, slots=True)
class Starter:
    """One starter bot: the tools it needs, its make target and its command."""

    lang: str
    tools: tuple[str, ...]
    cmd: tuple[str, ...]
    tcp: bool = False
    """JeroMQ cannot reach libzmq's ipc sockets, so the referee binds tcp for it."""
    make: bool = True

    @property
    def argv(self) -> tuple[str, ...]:
        """The command with the bot's path made absolute."""
        return tuple(str(BOTS / part) if part.startswith(f"{self.lang}/") else part
                     for part in self.cmd)


STARTERS = {s.lang: s for s in (
    Starter("javascript", ("node", "npm"), ("node", "javascript/bot.js")),
    Starter("c", ("make", "cc", "pkg-config"), ("c/bot",)),
    Starter("rust", ("make", "cargo", "pkg-config"), ("rust/target/release/bot",)),
    Starter("go", ("make", "go", "pkg-config"), ("go/bot",)),
    Starter("java", ("make", "java", "mvn"), ("java", "-jar", "java/target/bot.jar"), tcp=True),
    Starter("stdio", ("perl",), ("stdio:perl", "stdio/bot.pl"), make=False),
)}


def missing(reason: str) -> None:
    """Skip for a missing toolchain, or fail when CI=true (a skip would hide it)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def require(starter: Starter) -> None:
    """Check that the starter's tools are on PATH."""
    absent = [tool for tool in starter.tools if shutil.which(tool) is None]
    if absent:
        missing(f"the {starter.lang} starter needs {', '.join(absent)} on PATH")


def make(target: str) -> None:
    """Run one target of sample_bots/toolchains.mk; fail with its output."""
    done = subprocess.run(["make", "--no-print-directory", "-f", str(MAKEFILE), target],
                          cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    if done.returncode != 0:
        pytest.fail(f"make {target} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}",
                    pytrace=False)
