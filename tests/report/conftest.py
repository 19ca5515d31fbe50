"""Small real runs of both games (built-in bots, real replays), shared by the report tests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.polyglot.starters import missing

GAMES = ("machiavelli", "machiavelli-rummy")


def tournament(game: str) -> str:
    """A round-robin of four built-in bots at tables of three: four games."""
    bots = "".join(f"  - {{name: {name}, cmd: 'builtin:random'}}\n"
                   for name in ("ann", "bob", "cat", "dan"))
    return (f"name: tiny-{game}\ngame: {game}\nplayers_per_game: 3\ngames_per_pairing: 1\n"
            f"seed: 5\nbots:\n{bots}")


def play(directory: Path, game: str, *extra: str) -> Path:
    """Run the tournament of `game` into directory/run; return that directory."""
    file = directory / "t.yaml"
    file.write_text(tournament(game))
    out = directory / "run"
    result = CliRunner().invoke(main, ["run", str(file), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session", params=GAMES)
def finished_run(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of each game, with its report written by `arena run`."""
    return play(tmp_path_factory.mktemp(str(request.param)), str(request.param))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    chromium = shutil.which("chromium")
    if chromium is None:
        missing("chromium is not installed (make browser installs Debian's)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (make venv)")
    with sync_playwright() as driver:
        # root in a container has no user namespace for chromium's own sandbox
        launched = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page that fails the test on any console error or uncaught script error."""
    opened = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: errors.append(str(e)))
    yield opened
    opened.close()
    assert errors == []
