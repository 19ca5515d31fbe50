"""The kinds of fault a bot's message can commit: a closed set, kept apart from `record.py`
so that the wire codec and the Python client library (every Python bot) import one enum
rather than the records and the engine contract, whose dataclasses cost about 10 ms of CPU
at each Python bot's start (`bench/tournament.py --scaling` counts the start-ups)."""

from __future__ import annotations

from enum import StrEnum


class FaultKind(StrEnum):
    """Why a bot's message for a decision was not accepted (a closed set)."""

    TIMEOUT = "timeout"
    """No reply within the move limit and the bank."""
    NOT_JSON = "not_json"
    """The frame is not UTF-8 JSON."""
    BAD_MESSAGE = "bad_message"
    """JSON of the wrong shape or type for the protocol."""
    OVERSIZE = "oversize"
    """The frame is larger than the protocol limit."""
    MALFORMED_ACTION = "malformed_action"
    """The action payload is not an action of the requested kind."""
    ILLEGAL_ACTION = "illegal_action"
    """A well-formed action that the rules forbid."""
    LIMIT = "limit"
    """The bot's processes hit a resource limit (detail: `memory: ...`, `processes: ...`,
    `cpu: ...`); the seat forfeits."""
    FLOOD = "flood"
    """Too many messages sent while not asked (one fault per `FLOOD_LIMIT` of them)."""
