"""The arena command line with a stdout whose reader goes right after it is sent a line
starting with $1: `python tests/reader_goes.py MARKER run FILE ...` is `arena run FILE ...`
in a pipe whose reader stops there (`| head -n N`).

Why not a test closing its end of a pipe once it reads that line: the command's next print
races with the close, and a print that wins passes without testing anything. Here the
close happens inside the write that sends the marker's line, so the next write always
finds the pipe without a reader (EPIPE), as the command's print after a reader gone."""

from __future__ import annotations

import io
import os
import sys


class _ReaderGoes(io.FileIO):
    """The write end of a pipe nobody reads, whose read end (kept open, so writes succeed
    into the pipe's buffer) is closed once a line starting with the marker is written."""

    def __init__(self, fd: int, read_end: int, marker: bytes) -> None:
        super().__init__(fd, "wb", closefd=False)
        self.read_end: int | None = read_end
        self.marker, self.seen = b"\n" + marker, b"\n"

    def write(self, data: object) -> int:
        written = super().write(data)  # type: ignore[arg-type]
        if self.read_end is not None and written:
            self.seen = (self.seen + bytes(data)[:written])[-4096:]  # type: ignore[call-overload]
            if self.marker in self.seen:
                os.close(self.read_end)
                self.read_end = None
        return written or 0


def main() -> None:
    marker, args = sys.argv[1].encode(), sys.argv[2:]
    read_end, write_end = os.pipe()
    os.dup2(write_end, 1)
    os.close(write_end)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_ReaderGoes(1, read_end, marker)),
                                  encoding="utf-8")
    from arena.cli import main as cli

    cli(args=args, prog_name="arena")


if __name__ == "__main__":
    main()
