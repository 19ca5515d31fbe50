"""A worker's log records, sent to the coordinator, which prints them as its own.

Why: a worker is forked from the fork server, where nothing configures logging, so its
records went to Python's last-resort handler: every warning printed straight to stderr,
whatever `--log-level` said (`debug` showed nothing of the referee's, `error` still showed
every warning), and a bot that cannot start printed a forfeit line for every game it
missed (a thousand lines for a thousand games). Now each worker's `arena` logger is at
the parent's level and sends what it keeps down its pipe, as a `log` event, and the parent
logs it through its own handlers (rich, beside the live view), showing each kind of
warning about one bot `SHOWN` times and then leaving out the rest: the standings count
every fault, timeout and forfeit, and the bot's log file keeps its own output.

One lock serialises everything a worker writes on its pipe: records may come from the
referee's threads (a bot's log drainer, the descendants monitor) while the main thread
sends a game's result, and two writers at once would interleave their bytes.

A Dask worker's game keeps the records its thread logs (`kept`) and returns them with its
result; the coordinator prints them through the same `Sink`, so an organiser sees at the
coordinator what a local run would show, whichever machine played the game.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import Counter
from collections.abc import Iterator
from multiprocessing.connection import Connection

SEND_LOCK = threading.Lock()
"""Held by every write on a worker's pipe (this process has one worker and one pipe)."""

SHOWN = 3
"""How many times a warning or error of one kind about one bot is printed."""

LEFT_OUT = " (shown {n} times: more like it are left out)"

LogPayload = tuple[int, str, tuple[str, str], str]
"""A `log` event's payload: level, logger name, the kind of message (its format and its
first argument, the bot it is about in the referee's messages), the message itself."""


class PipeHandler(logging.Handler):
    """In a worker: each record becomes a `log` event on the pipe to the parent."""

    def __init__(self, conn: Connection, index: int) -> None:
        super().__init__()
        self.conn, self.index = conn, index

    def emit(self, record: logging.LogRecord) -> None:
        try:
            event = ("log", self.index, None, payload(record, self))
            with SEND_LOCK:
                self.conn.send(event)
        except Exception:  # noqa: BLE001 - a record is never worth a game: the parent may
            pass           # be gone (the worker's next send finds out) or a value unprintable


def payload(record: logging.LogRecord, handler: logging.Handler) -> LogPayload:
    """A record as the coordinator's `Sink` takes it."""
    message = handler.format(record)  # the message, and a traceback where one is attached
    args = record.args if isinstance(record.args, tuple) else ()
    return record.levelno, record.name, (str(record.msg), str(args[0]) if args else ""), \
        message


def forward(conn: Connection, index: int, level: int) -> None:
    """In a worker: send every record of arena's loggers at `level` or above to the parent."""
    logger = logging.getLogger("arena")
    logger.handlers = [PipeHandler(conn, index)]
    logger.setLevel(level)
    logger.propagate = False  # nothing else of this process prints them


class _Kept(logging.Handler):
    """On a Dask worker: keeps the records of each thread that is playing a game (`kept`);
    prints the others as Python does where no handler is set (warnings and worse, on this
    worker's stderr)."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        records: list[LogPayload] | None = getattr(self.local, "records", None)
        if records is not None:
            if record.levelno >= self.local.level:
                records.append(payload(record, self))
        elif logging.lastResort is not None and record.levelno >= logging.lastResort.level:
            logging.lastResort.handle(record)


_KEPT: list[_Kept] = []
_KEPT_LOCK = threading.Lock()


@contextlib.contextmanager
def kept(level: int) -> Iterator[list[LogPayload]]:
    """On a Dask worker: collect the records this thread logs at `level` or above until the
    block ends (a game's task returns them). arena's loggers are set to `level` for the
    whole worker process: the run's, as the coordinator's `--log-level` says (two runs at
    different levels on one worker at once get the later one's)."""
    with _KEPT_LOCK:
        if not _KEPT:
            _KEPT.append(_Kept())
            logger = logging.getLogger("arena")
            logger.addHandler(_KEPT[0])
            logger.propagate = False  # `_Kept` prints what it does not keep
    handler = _KEPT[0]
    logging.getLogger("arena").setLevel(level)
    records: list[LogPayload] = []
    handler.local.records, handler.local.level = records, level
    try:
        yield records
    finally:
        handler.local.records = None


class Sink:
    """In the parent: logs the workers' records as its own, each repeated warning about
    one bot at most `SHOWN` times (every record at debug level, where all was asked for)."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, str]] = Counter()

    def log(self, payload: LogPayload) -> None:
        level, name, kind, message = payload
        logger = logging.getLogger(name)
        if level >= logging.WARNING and logger.getEffectiveLevel() > logging.DEBUG:
            self.seen[kind] += 1
            if self.seen[kind] > SHOWN:
                return
            if self.seen[kind] == SHOWN:
                message += LEFT_OUT.format(n=SHOWN)
        logger.log(level, "%s", message)
