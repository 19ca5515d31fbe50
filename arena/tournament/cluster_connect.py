"""Reaching a Dask cluster: a new LocalCluster for `local[:N]`, else a client of the
scheduler at the address, each failure in one line (`connect`).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import socket
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from arena.core.errors import ArenaError
from arena.tournament.clusterconf import local_workers

if TYPE_CHECKING:
    from distributed import Client

CONNECT_S = 20
"""How long to wait for a remote scheduler before saying it cannot be reached."""
HANDSHAKE_S = 10
"""How much longer than `CONNECT_S` a scheduler may take to answer once connected."""
CLOSE_S = 2
"""How long a client whose start failed may take to close."""


def connect(address: str, workers: int) -> tuple[Client, Any]:
    """A client of the cluster at `address` (`local[:N]`: a new LocalCluster of N workers).

    Raises:
        ArenaError: the scheduler cannot be reached, or the cluster cannot start.
    """
    try:
        with _sigint_blocked():  # threads that importing starts keep the mask: see there
            from distributed import Client, LocalCluster
    except ImportError:
        raise ArenaError("executor dask needs Dask: pip install 'arena[cluster]' (dask and "
                         "distributed) on this machine and on every worker") from None
    cluster: Any = None
    try:
        count = local_workers(address)
        if count is not None:
            with _sigint_blocked():
                # one thread a worker: a referee is Python, threads would share one GIL
                cluster = LocalCluster(n_workers=count or workers, threads_per_worker=1,
                                       processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
            return Client(cluster), cluster
        check_host(address)
        _check_tls_files(address)
        return _client(address), None
    except BaseException as exc:
        if cluster is not None:  # a half-started one: its workers would outlive the run
            with contextlib.suppress(Exception):
                cluster.close()
        if isinstance(exc, ArenaError) or not isinstance(exc, Exception):
            raise  # Ctrl-C among them
        raise ArenaError(f"cannot reach the Dask scheduler at {address}: "
                         f"{_reason(address, exc)}") from None


def _client(address: str) -> Client:
    """A client of the scheduler at `address`, or ArenaError when nothing there answers as
    one in time: Dask's own timeout covers the connection, not the handshake, so a port
    that accepts and stays silent (the scheduler's dashboard, 8787, for one) would hang.

    Raises:
        ArenaError: no answer within `CONNECT_S` and a margin.
    """
    from distributed import Client

    got: list[Client] = []
    failed: list[BaseException] = []
    lock, given_up = threading.Lock(), threading.Event()

    def connect() -> None:
        try:
            client = Client(address, timeout=CONNECT_S, set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            _discard_half_made(exc)
            failed.append(exc)
            return
        with lock:
            if not given_up.is_set():
                got.append(client)
                return
        client.close()  # answered after the caller gave up on it

    thread = threading.Thread(target=connect, name="arena-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_S + HANDSHAKE_S)
    with lock:
        given_up.set()
    if failed:
        raise failed[0]
    if not got:
        raise ArenaError(f"cannot reach the Dask scheduler at {address}: something accepts "
                         f"connections there but did not answer as a Dask scheduler within "
                         f"{CONNECT_S + HANDSHAKE_S:.0f} s (a scheduler listens on 8786 by "
                         "default; 8787 is its dashboard)")
    return got[0]


def _discard_half_made(exc: BaseException) -> None:
    """Close the client whose start raised `exc`, found in its traceback, and drop the
    tracebacks. Why: the half-made client lived on in a traceback until the process
    exited, where its `__del__` waited 40 s (twice the connect timeout) to close it and
    printed Dask's traceback after arena's one line (a worker's address given for the
    scheduler's, tls:// without a certificate). Dask's warning of the connection that the
    collector then closes ("Closing dangling stream") says nothing to an organiser: it is
    kept out."""
    from distributed import Client

    comm = logging.getLogger("distributed.comm.tcp")
    level = comm.level
    comm.setLevel(logging.ERROR)
    try:
        client = next((c for c in _frame_selves(exc) if isinstance(c, Client)), None)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=CLOSE_S)
            client.status = "closed"  # as close() leaves it: its __del__ then returns
        chained: BaseException | None = exc
        while chained is not None:  # each traceback of the chain holds frames that hold it
            chained.__traceback__ = None
            chained = chained.__context__
        del client
        gc.collect()
    finally:
        comm.setLevel(level)


def _frame_selves(exc: BaseException) -> list[object]:
    """The `self` of each method in `exc`'s traceback, outermost first."""
    found, tb = [], exc.__traceback__
    while tb is not None:
        if "self" in tb.tb_frame.f_locals:
            found.append(tb.tb_frame.f_locals["self"])
        tb = tb.tb_next
    return found


def check_host(address: str) -> None:
    """Look up the host of a scheduler's address now (none for `local[:N]`).

    Raises:
        ArenaError: its name is unknown.
    """
    if local_workers(address) is not None:
        return
    try:
        _resolve(address)
    except OSError as exc:
        raise ArenaError(f"cannot reach the Dask scheduler at {address}: "
                         f"{_reason(address, exc)}") from None


TLS_FILES = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert",
             "distributed.comm.tls.client.key")
"""The settings that name this machine's TLS files (DASK_DISTRIBUTED__COMM__TLS__CA_FILE
and so on, or distributed.yaml)."""


def _check_tls_files(address: str) -> None:
    """Name a TLS file that Dask's settings give and that is not there: Dask says only
    "No such file or directory", whichever it was (a relative path, read from the
    directory arena runs in, for one).

    Raises:
        ArenaError: a file the settings name is missing.
    """
    if not address.startswith(("tls://", "wss://")):
        return
    import dask

    for key in TLS_FILES:
        path = dask.config.get(key, None)
        if path and not os.path.isfile(path):
            hint = "" if os.path.isabs(path) else \
                f"a relative path is read from {os.getcwd()}, where arena runs; give each " \
                "TLS file by its absolute path: "
            raise ArenaError(f"cannot reach the Dask scheduler at {address}: the setting "
                             f"{key} names {path}, which is not a file ({hint}"
                             "docs/cluster.md, TLS)")


def _resolve(address: str) -> None:
    """Look the scheduler's host up first: Dask would try an unknown name until its timeout
    and then say only that it timed out.

    Raises:
        OSError: the name is unknown (socket.gaierror).
    """
    host = address.partition("://")[2] or address
    host = host.rsplit(":", 1)[0].strip("[]")
    socket.getaddrinfo(host, None)


def _reason(address: str, exc: Exception) -> str:
    if isinstance(exc, socket.gaierror):
        return f"its host name cannot be looked up ({exc.strerror or exc})"
    if isinstance(exc, OSError) and exc.filename:  # a TLS file the settings name, missing
        return f"{exc.strerror or exc}: {exc.filename}"
    if isinstance(exc, TypeError) and "Worker." in str(exc):
        # Dask's words: "Worker.identity() got an unexpected keyword argument ..."
        return ("that is a Dask worker's address, not the scheduler's (the one each "
                "`dask worker` was started with; 8786 by default)")
    if isinstance(exc, TypeError) and address.startswith("tls://"):
        # Dask's words: "TLS expects a `ssl_context` argument ... Instead got None"
        return ("tls:// needs this machine's certificate: set DASK_DISTRIBUTED__COMM__TLS__"
                "CA_FILE, __CLIENT__CERT and __CLIENT__KEY (docs/cluster.md, TLS)")
    if isinstance(exc, (OSError, TimeoutError, ValueError, RuntimeError)):
        return str(exc)  # Dask's own words say it (a timeout, "encryption required", ...)
    return f"{type(exc).__name__}: {exc}"


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Block SIGINT while a LocalCluster starts: Ctrl-C at a terminal reaches every process
    of its group, and each worker process would print a traceback of its own. A child keeps
    the mask of the thread that starts it, across exec, and Python leaves the signal blocked
    there: the workers are started by the threads Dask starts now, which keep this thread's
    mask. Unblocked after, here, where a Ctrl-C pressed meanwhile (pending, not lost) stops
    the run once the cluster has started: the coordinator alone handles it, and closes the
    cluster. (Ignoring SIGINT instead, which a child also keeps, lost that Ctrl-C.)

    Dask is imported under it too: a thread that its import starts (a library's, that never
    runs Python) would otherwise take a Ctrl-C meanwhile, and it would stop the start
    half-way instead of after it.

    First multiprocessing's resource tracker: the first process started with it starts the
    tracker, which then unblocks SIGINT in the thread that started it (its own guard for
    the tracker), and so in every worker that thread started after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
