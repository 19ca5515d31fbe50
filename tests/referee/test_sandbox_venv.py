"""A bot run by a virtual environment's interpreter gets that environment in the sandbox:
`.venv/bin/python` given by path was resolved to the base interpreter (the path that leads
to pyvenv.cfg was lost), and a venv found on PATH was not bound, so the bot lost its
packages (ModuleNotFoundError)."""

from __future__ import annotations

import os
import sys
import venv
from pathlib import Path

import pytest

from arena.referee.limits import Limits
from arena.referee.sandbox import bwrap_launch
from tests.referee.conftest import sandboxed_output

PROBE = "import venv_marker; print(venv_marker.WHERE)"



@pytest.fixture
def env_dir(tmp_path: Path) -> Path:
    """A virtual environment (no pip) holding a module the base interpreter lacks."""
    root = tmp_path / "bot" / ".venv"
    venv.create(root, with_pip=False, symlinks=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (root / "lib" / version / "site-packages" / "venv_marker.py").write_text(
        "WHERE = 'the bot venv'\n")
    return root



def test_a_venv_interpreter_given_by_path_keeps_its_environment(bwrap: str,
                                                                env_dir: Path) -> None:
    bot = env_dir.parent
    launch = bwrap_launch(bwrap, [".venv/bin/python", "-c", PROBE], {}, str(bot),
                          endpoint_dir=None, hide=[], network=False, limits=Limits())
    assert str(env_dir / "bin" / "python") in launch.argv  # not the base interpreter
    assert sandboxed_output(launch) == "the bot venv"


def test_a_venv_found_on_path_is_bound_for_the_bot(bwrap: str, env_dir: Path,
                                                   tmp_path: Path) -> None:
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    env = {"PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    launch = bwrap_launch(bwrap, ["python", "-c", PROBE], env, str(elsewhere),
                          endpoint_dir=None, hide=[], network=False, limits=Limits())
    assert sandboxed_output(launch) == "the bot venv"
