"""The `executor:`, `cluster:` and `bot_files:` keys of a tournament file and `--cluster`:
where the games are played. None of them changes a result (not in the fingerprint)."""

from __future__ import annotations

import re

from arena.core.options import suggest
from arena.tournament.isolation import Report
from arena.tournament.yamlpos import LineDict

EXECUTORS = ("local", "dask")
BOT_FILES = ("bundle", "shared")
MAX_LOCAL_WORKERS = 1024
_LOCAL = re.compile(r"^local(?::(\d+))?$")
_REMOTE = re.compile(r"^(?:(?:tcp|tls|ws|wss)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")


def cluster_problem(address: str) -> str | None:
    """What is wrong with a `--cluster` / `cluster:` address, or None when it is usable.

    Valid: `local` or `local:N` (a Dask LocalCluster of N workers on this machine), or a
    scheduler's address `[tcp|tls|ws|wss://]HOST:PORT`.
    """
    local = _LOCAL.match(address)
    if local:
        if local.group(1) is not None and not 1 <= int(local.group(1)) <= MAX_LOCAL_WORKERS:
            return f"local:N needs 1 <= N <= {MAX_LOCAL_WORKERS}, not {local.group(1)}"
        return None
    if _REMOTE.match(address):
        port = int(address.rsplit(":", 1)[1])
        return None if 1 <= port <= 65535 else \
            f"{address!r}: a port is 1 to 65535, not {port}"
    return (f"{address!r} is not a cluster address: give a Dask scheduler's address such "
            "as tcp://HOST:8786 or tls://HOST:8786, or local:N for N workers on this machine")


def local_workers(address: str) -> int | None:
    """For `local` or `local:N`, the LocalCluster's workers (0: as many as the run's
    concurrency); None for a scheduler's address (`localhost:8786` is one)."""
    local = _LOCAL.match(address)
    if local is None:
        return None
    return int(local.group(1) or 0)


def placement(doc: LineDict, report: Report) -> tuple[str | None, str]:
    """Read `executor:`, `cluster:` and `bot_files:`: the cluster's address (None: local
    worker processes) and how bots reach the workers."""
    executor = _choice(doc, "executor", EXECUTORS, report)
    files = _choice(doc, "bot_files", BOT_FILES, report)
    address = doc.get("cluster")
    if address is not None:
        problem = cluster_problem(address) if isinstance(address, str) else \
            f"'cluster' must be an address such as tcp://HOST:8786, not {address!r}"
        if problem is not None:
            report(doc.line_of("cluster"), problem)
            address = None
        elif executor != "dask":
            report(doc.line_of("cluster"), "'cluster' needs 'executor: dask'")
    elif executor == "dask":
        address = "local"
    return (address if executor == "dask" else None), files


def _choice(doc: LineDict, key: str, valid: tuple[str, ...], report: Report) -> str:
    value = doc.get(key, valid[0])
    if value not in valid:
        report(doc.line_of(key), f"{key} {value!r} is not one of {', '.join(valid)}"
               f"{suggest(str(value), list(valid))}")
        return valid[0]
    return str(value)
