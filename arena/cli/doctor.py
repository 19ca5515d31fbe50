"""`arena doctor`: what isolation and limits this machine gives bots, and why not."""

from __future__ import annotations

import os
import sys

import click

from arena.cli.ui import console
from arena.referee.limits import Enforcer, Limits
from arena.referee.sandbox import SandboxMode, SandboxPolicy, probe_bwrap, resolve


def _row(what: str, status: str, detail: str) -> None:
    console.print(f"[bold]{what}[/]: {status}", highlight=False)
    if detail:
        console.print(f"    {detail}", highlight=False, soft_wrap=False)


@click.command(short_help="Show what sandbox and limits bots get on this machine.")
def doctor() -> None:
    """Show what isolation and limits bots get on this machine, and why not where they
    can't: bubblewrap (namespaces), cgroups (memory, processes, CPU) or rlimits.

    Exits 0 when `sandbox: auto` gives every bot a bubblewrap sandbox, 1 otherwise.
    """
    bwrap, why_not = probe_bwrap()
    isolation = resolve(SandboxPolicy(SandboxMode.NONE))
    user = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}"
    _row("platform", f"{sys.platform}, running as {user}", "")
    _row("sandbox", f"bubblewrap ({bwrap})" if bwrap else "NONE",
         "new PID, mount, IPC, UTS, user and network namespaces; no capabilities; system "
         "and runtimes read-only; a private size-limited /tmp; dies with the referee"
         if bwrap else why_not)
    cgroup = isolation.enforcer is not Enforcer.RLIMIT
    _row("limits", isolation.enforcer.value,
         "memory, processes/threads and CPU per game for all of a bot's processes together; "
         "every process a bot starts is killed with it" if cgroup else
         "per process only: memory (RLIMIT_DATA), CPU (RLIMIT_CPU), open files; processes "
         f"only for a non-root user (RLIMIT_NPROC); no cgroup because {isolation.why_not}")
    _row("default limits", ", ".join(f"{k} {v}" for k, v in Limits().to_json().items()),
         "change them with `limits:` in a tournament file (docs/security.md)")
    _row("sandbox: auto gives", "bwrap" if bwrap else "none, with a warning",
         "" if bwrap else "a hostile bot could read other bots' tokens and the run directory")
    if not bwrap:
        sys.exit(1)
