"""Argument types the benches share: a count is a whole number, at least 1, or the bench
says so in one line (argparse's usage error) instead of a traceback or an endless loop."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    """A count: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def counts(text: str) -> list[int]:
    """Comma-separated counts, e.g. `1,2,4,8`."""
    return [positive(part) for part in text.split(",")]
