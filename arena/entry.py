"""The `arena` console script's entry point, kept outside `arena.cli` on purpose.

The script imports this module at its top. Worker processes are started with
multiprocessing's "spawn", which runs the parent's main script again in each child (as
`__mp_main__`): were the entry point `arena.cli:main`, every worker would import the whole
command line (every command, rich, the report's templates and plots) before its first game.
Here the script imports only this module, and the command line is imported when it runs.
"""

from __future__ import annotations

from typing import Any


def main() -> Any:
    """Run the `arena` command line."""
    from arena.cli import main as cli

    return cli()
