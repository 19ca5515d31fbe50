"""Rich rendering shared by the commands: consoles, logging, tables.

rich is imported only by the `arena.cli` package.
"""

from __future__ import annotations

import logging

from rich.console import Console
from rich.logging import RichHandler

console = Console()
err_console = Console(stderr=True)


def setup_logging(level: str) -> None:
    """Send arena's log records to stderr through rich."""
    logger = logging.getLogger("arena")
    logger.setLevel(level)
    if not any(isinstance(h, RichHandler) for h in logger.handlers):
        logger.addHandler(RichHandler(console=err_console, show_path=False))
