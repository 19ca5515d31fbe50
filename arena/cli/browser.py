"""Opening a page in a graphical web browser, never in a text browser.

`webbrowser.open` tries the browsers it knows in turn, and on a machine with no display it
knows only text browsers (lynx, w3m, links, elinks, and Debian's `www-browser`, which
names one of them): it runs the first in the foreground, where it takes the terminal over
until the user quits it, and `arena report --open` seemed to hang. Here each browser in
`webbrowser`'s order is tried as `open` tries it, the text browsers left out.
"""

from __future__ import annotations

import os
import shlex
import webbrowser
from dataclasses import dataclass

TEXT_BROWSERS = frozenset({"lynx", "w3m", "links", "links2", "elinks", "www-browser",
                           "browsh"})
"""Browsers that run in the terminal (by the name of their program)."""


@dataclass(frozen=True, slots=True)
class Opened:
    """Whether a graphical browser opened the page, and the text browsers left out."""

    opened: bool
    skipped: tuple[str, ...] = ()


def open_graphical(url: str) -> Opened:
    """Open `url` in the first graphical browser that `webbrowser` knows and that opens it;
    a text browser is never started."""
    skipped: list[str] = []
    for name in _try_order():
        try:
            browser = webbrowser.get(name)
        except webbrowser.Error:  # a BROWSER entry naming no usable program
            continue
        program = program_of(name, browser)
        if program in TEXT_BROWSERS:
            if program not in skipped:
                skipped.append(program)
            continue
        try:
            if browser.open(url):
                return Opened(True, tuple(skipped))
        except (webbrowser.Error, OSError):  # it could not be started: the next is tried
            continue
    return Opened(False, tuple(skipped))


def _try_order() -> list[str | None]:
    """The names `webbrowser.open` would try, in its order (it keeps them in a private
    list; where that is not found, only its first choice, None)."""
    try:
        webbrowser.get()  # registers the standard browsers, BROWSER first, once
    except webbrowser.Error:  # none at all
        return []
    order = getattr(webbrowser, "_tryorder", None)
    if isinstance(order, list) and all(isinstance(n, str) for n in order):
        return list(order)
    return [None]


def program_of(name: str | None, browser: webbrowser.BaseBrowser) -> str:
    """The name of the program `browser` runs (a BROWSER entry may be a command line, a
    path, or the name of a browser `webbrowser` knows)."""
    command = str(getattr(browser, "name", "") or name or "")
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return os.path.basename(words[0]).lower() if words else ""
