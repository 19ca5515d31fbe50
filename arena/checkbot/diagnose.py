"""What a bot's end, first message and log say, in words for its author."""

from __future__ import annotations

from pathlib import Path

from arena.checkbot.checks import DIED_HINT, DROPPED_HINT
from arena.protocol.codec import WireError, decode_bot
from arena.protocol.messages import PROTOCOL_VERSION, ErrorCode, Hello
from arena.referee.roster import BAD_TOKEN_NOTE, printable


def end_hint(status: int | None) -> str:
    """The hint for a lost seat: "" (the check's own hint) for a process that ended by itself."""
    if status is None:
        return DROPPED_HINT
    return "" if status == 0 else DIED_HINT


def hello_problem(frames: list[bytes], token: str) -> tuple[str, ErrorCode | None] | None:
    """Return what is wrong with the first message, and the `error` code a run's referee
    answers it with (None: it drops the message unanswered); None for a good hello."""
    if len(frames) != 1:
        return f"the first message has {len(frames)} frames; a message is exactly one frame", \
            None
    try:
        message = decode_bot(frames[0])
    except WireError as exc:
        return f"the first message is not a valid hello: {exc}", None
    if not isinstance(message, Hello):
        return "the first message must be a hello", None
    if message.token != token:
        return f"its hello was refused: {BAD_TOKEN_NOTE}", ErrorCode.BAD_TOKEN
    if message.protocol != PROTOCOL_VERSION:
        return f"hello says protocol {message.protocol}; the referee speaks " \
            f"{PROTOCOL_VERSION}", ErrorCode.PROTOCOL_VERSION
    return None


def log_tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(printable(line) for line in text.splitlines()[-lines:])
