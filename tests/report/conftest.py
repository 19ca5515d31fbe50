"""Small real runs of both games (built-in bots, real replays), shared by the report tests."""

from __future__ import annotations

import html
import re
import shutil
import webbrowser
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


def settings_of(index: Path) -> list[tuple[str, str]]:
    """The Settings table of a report's index: (name, value text) per row."""
    page = index.read_text()
    table = page[page.index('data-testid="settings"'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r'<th class="l">(.*?)</th><td class="l">(.*?)</td>', table)
    return [(html.unescape(k), html.unescape(re.sub("<.*?>", "", v))) for k, v in rows]


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


class FakeBrowsers:
    """Programs standing in for browsers, alone on PATH, with no display: each records
    its name and arguments in `log` when it is started, and exits with the given code."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log = folder / "started.log"

    def add(self, name: str, code: int = 0) -> Path:
        program = self.folder / name
        program.write_text(f'#!/bin/sh\necho "{name} $*" >> "{self.log}"\nexit {code}\n')
        program.chmod(0o755)
        return program

    def started(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.is_file() else []


@pytest.fixture
def fake_browsers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeBrowsers:
    """No real browser is reachable: PATH holds only the fakes, there is no display, and
    webbrowser's registry is made afresh from this environment (it is kept per process)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setenv("TERM", "xterm")  # webbrowser registers text browsers under a TERM
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_os_preferred_browser", None)
    return FakeBrowsers(folder)


