"""Bots whose programs share a folder: each sees the other's files in its sandbox.

The sandbox hides every other bot's own directories from a bot (docs/security.md), except
those that are its own too: two bots whose programs sit in one folder (`python
bots/alice.py` and `python bots/bob.py`) each get that folder, so each can read the other's
program and data. That is a layout, not an attack, so it is said, not refused: at the start
of every sandboxed run (`bwrap`, or `auto` where bubblewrap works) and by `arena run
--dry-run`. arena's own sample bots share their folder by design and are not named: their
files are public, and `make demo` would open with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.referee.sandbox import own_dirs
from arena.referee.spec import BotSpec
from arena.referee.stdio_bridge import bridge_argv

SAMPLES = str(Path(__file__).resolve().parents[2] / "sample_bots")
"""arena's sample bots, one folder per language (in a checkout of arena)."""


def shared_folders(bots: Sequence[BotSpec]) -> list[str]:
    """One line per folder that holds a bot's program and is given to bots of more than
    one command (bots of one command share it by design): each can read the others'."""
    process = [b for b in bots if b.builtin is None]
    own = {b.name: own_dirs(bridge_argv(b.cmd), b.cwd) for b in process}
    # own_dirs lists the cwd first, then the folders of the files the command names
    programs = {d for b in process for d in (own[b.name][1:] if b.cwd else own[b.name])}
    lines = []
    for folder in sorted(programs):
        if Path(folder).parent == Path(SAMPLES):
            continue
        given = [b for b in process if folder in own[b.name]]
        if len({(b.cmd, b.cwd) for b in given}) > 1:
            names = ", ".join(repr(b.name) for b in given)
            lines.append(f"bots {names} are given the same folder {folder}: each can read "
                         "the others' files there (give each bot a folder of its own)")
    return lines
