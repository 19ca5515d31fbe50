"""The viewer's data files: one script per view of a game, written once per replay.

Each game's views live in `REPORT/data/<game>/`, one `<view>.js` per view (a seat's holds
only what it adds to `public.js`, which the viewer loads with it), and a stamp
file, `replay.sha256`, written last: the SHA-256 of the replay the views were made from
(with its size and modification time, for a quick check: `is_current`), and who made
them (`WORKER`, `REPORT`). A folder whose stamp matches its replay is complete and
current, so it is reused; any other is made again. This is the only code that writes view
data: `arena run` calls it in the worker that played each game, as soon as the game is
committed (`ViewsHook`), so the report written at the end of the run finds every game's
views made and writes its pages only; `arena report` makes what is missing or stale (a run
on a cluster, a replay changed).
"""

from __future__ import annotations

import base64
import contextlib
import gc
import gzip
import hashlib
import json
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from arena.core.errors import ArenaError
from arena.core.game import Json
from arena.games import REGISTRY
from arena.referee.replay import Replay, read_replay
from arena.referee.review import engine_for
from arena.report.views import overlay, stored_views
from arena.tournament.outputs import write_whole

DATA = "data"
"""Where the views' script files go, one folder per game."""
STAMP = "replay.sha256"
"""In a game's folder: the digest of the replay its views were made from (written last)."""
WORKER, REPORT, EARLIER = "worker", "report", ""
"""Who made a game's views, as its stamp says: the worker that played the game (`arena
run`), a report's build, or an arena whose stamps did not say (before either was told)."""


def digest(replay: Path) -> str:
    """Return the SHA-256 of a replay file, in hex."""
    return hashlib.sha256(replay.read_bytes()).hexdigest()


def _seen(replay: Path) -> str:
    """The replay's size and modification time, as a stamp records them."""
    stat = replay.stat()
    return f"{stat.st_size} {stat.st_mtime_ns}"


def is_current(folder: Path, replay: Path) -> bool:
    """Whether `folder` holds the complete views of exactly this replay (`maker`)."""
    return maker(folder, replay) is not None


def maker(folder: Path, replay: Path) -> str | None:
    """Who made the complete views of exactly this replay in `folder` (`WORKER`, `REPORT`
    or `EARLIER`), or None where `folder` does not hold them.

    The stamp's digest decides, unless the replay's size and modification time are those
    the stamp recorded (the quick check of make and rsync): a report refreshed every night
    over a ladder's 100,000 games would otherwise read and hash some 10 GB of replays each
    time. The quick check is trusted only for a replay last modified before the stamp was
    written: one rewritten within the same tick of the file system's clock (git's "racily
    clean" files) is hashed.
    """
    stamp = folder / STAMP
    try:
        recorded = stamp.read_text().split()
        if not recorded:
            return None
        # digest, size, modification time, then the maker (absent from older stamps)
        made = recorded[3] if len(recorded) > 3 else EARLIER
        if (" ".join(recorded[1:3]) == _seen(replay)
                and replay.stat().st_mtime_ns < stamp.stat().st_mtime_ns):
            return made
        return made if recorded[0] == digest(replay) else None
    except OSError:  # no stamp yet (or none readable): made again
        return None


def ensure_views(replay: Path, folder: Path, by: str = REPORT) -> int:
    """Write the views of `replay` into `folder` unless they are current, stamped as made
    `by` (`WORKER`, `REPORT`); return how many were written (0: reused).

    Raises:
        ArenaError: the replay cannot be read, its game is unknown, or it does not
            re-simulate.
        OSError: the folder cannot be written.
    """
    if is_current(folder, replay):
        return 0
    seen = _seen(replay)  # before reading: a replay changed meanwhile fails the quick check
    data = replay.read_bytes()
    (folder / STAMP).unlink(missing_ok=True)
    written = write_game_views(read_replay(replay), folder)
    write_whole(folder / STAMP, f"{hashlib.sha256(data).hexdigest()} {seen} {by}\n")
    return written


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with Python's cyclic garbage collector off (as it was after).

    What it buys: a game's views hold every seat's observation at every decision, some
    70,000 lists and dicts alive at once, and no reference cycles (JSON-like data, freed
    by reference counting as always). Each allocation burst made the collector run, and
    its full passes went over everything the process holds (a worker's engines and
    referee too): with it running, 16.1-17.1 ms of CPU a 4-seat game's views, without
    12.3-12.5 ms (80 games one after another in a process holding arena's modules, twice
    each). A cycle made meanwhile is collected once the collector runs again.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def copy_views(source: Path, folder: Path, replay: Path) -> str | None:
    """Copy the views in `source` into `folder` when they are the current views of `replay`
    (`arena report DIR --out ELSEWHERE` reusing DIR's report); return who made them (as
    `maker`), or None where it copied nothing. The stamp is copied last, as it is written
    last.

    Raises:
        OSError: `folder` cannot be written.
    """
    made = None if source.resolve() == folder.resolve() else maker(source, replay)
    if made is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STAMP).unlink(missing_ok=True)
    for file in sorted(source.glob("*.js")):
        shutil.copyfile(file, folder / file.name)
    shutil.copyfile(source / STAMP, folder / STAMP)
    return made


def write_game_views(replay: Replay, folder: Path) -> int:
    """Write one script file per view of a game into `folder`; return how many.

    Raises:
        ArenaError: the replay's game is unknown or the replay does not re-simulate.
    """
    with collector_paused():
        views = stored_views(replay, engine_for(replay, REGISTRY))
        folder.mkdir(parents=True, exist_ok=True)
        for name, view in views.items():
            write_script(folder / f"{name}.js", "arenaView", json.dumps(name), pack(view))
        return len(views)


def read_view(folder: Path, name: str) -> dict[str, Json]:
    """Return a whole view from a game's folder, a seat's laid over the public view as the
    viewer does (for tests and benchmarks).

    Raises:
        OSError: a file is missing or unreadable.
    """
    stored = unpack((folder / f"{name}.js").read_text())
    if "base" not in stored:
        return stored
    return overlay(unpack((folder / f"{stored['base']}.js").read_text()), stored)


@dataclass(frozen=True, slots=True)
class ViewsHook:
    """What `arena run` hands its workers to call once a game is committed: make that
    game's views in `report/data/<game>/` (picklable: workers are separate processes).

    It never raises: a game it cannot make views for is the report's to name at the end
    (which tries again), never a reason to stop the run.
    """

    report: Path

    def __call__(self, key: str, replay: Path) -> None:
        try:
            ensure_views(replay, self.report / DATA / key, WORKER)
        except (ArenaError, OSError):
            pass


_ENCODER = msgspec.json.Encoder()
"""Compact UTF-8 JSON, byte for byte what `json.dumps(ensure_ascii=False, separators=(",",
":"))` writes, about seven times faster (the views' JSON was a fifth of their cost)."""


def pack(data: Mapping[str, Json]) -> str:
    """Return a view as a JSON string literal holding its gzip-compressed JSON in base64.

    What it buys: a game's views shrink about tenfold (a 200-game run's viewer data from
    about 50 MB to 6), and the browser unpacks them itself (`DecompressionStream`), offline
    and from `file://`. `mtime=0` keeps a rebuilt report byte for byte the same. Level 6
    (zlib's default) instead of gzip's 9: half the compression time for 6% more bytes.
    """
    packed = gzip.compress(_ENCODER.encode(data), compresslevel=6, mtime=0)
    return json.dumps(base64.b64encode(packed).decode("ascii"))


def unpack(script: str) -> dict[str, Json]:
    """Return the data held in a view file's text, as stored (a seat's: what it adds to the
    public view; `read_view` makes it whole)."""
    literal = script[script.rindex(",") + 1:script.rindex(")")]
    data = json.loads(gzip.decompress(base64.b64decode(json.loads(literal))))
    assert isinstance(data, dict)
    return data


def write_script(path: Path, callback: str, *arguments: str) -> None:
    """Write `callback(arguments);` (each argument already a JavaScript literal)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, f"{callback}({','.join(arguments)});\n")
