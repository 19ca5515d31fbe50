"""The wire messages, defined once: msgspec Structs tagged by their `type` field.

The JSON Schemas in `protocol/schemas/` are generated from these types (see
`arena.protocol.schema`); the field descriptions below are the protocol reference.
Imports only msgspec, the standard library and `arena.core`.
"""

# No `from __future__ import annotations` here: msgspec would compile each field's
# annotation from its string when a decoder is first built, ~1 ms of CPU at every
# Python bot's start (32.5 against 33.2 ms for the interpreter and `import arena.client`,
# 40 starts each, alternated); evaluated as the classes are made, they cost less.
from enum import StrEnum
from typing import Annotated, Any

import msgspec
from msgspec import Meta

PROTOCOL_VERSION = 1
"""The protocol version a bot states in `hello`; the referee refuses any other."""

MAX_MESSAGE_BYTES = 1 << 20
"""The largest frame a bot may send (1 MiB); a larger one is an `oversize` fault."""


class ErrorCode(StrEnum):
    """Why the referee rejected a bot's message (sent in `error.code`)."""

    TIMEOUT = "timeout"
    NOT_JSON = "not_json"
    BAD_MESSAGE = "bad_message"
    OVERSIZE = "oversize"
    MALFORMED_ACTION = "malformed_action"
    ILLEGAL_ACTION = "illegal_action"
    LIMIT = "limit"
    FLOOD = "flood"
    BAD_TOKEN = "bad_token"
    PROTOCOL_VERSION = "protocol_version"
    STALE_ID = "stale_id"
    UNEXPECTED = "unexpected"
    FORFEIT = "forfeit"


BOT_SEED_BITS = 53
"""`game_start.bot_seed` has this many bits: an integer a JSON number holds exactly in every
language (JavaScript, cJSON and others parse numbers as doubles)."""
BOT_SEED_MAX = (1 << BOT_SEED_BITS) - 1

Json = Any
Seat = Annotated[int, Meta(ge=0, description="A seat number, 0-based, in turn-order seating.")]
RequestId = Annotated[int, Meta(ge=1, description="The id of the request being answered.")]
Millis = Annotated[int, Meta(ge=0)]


class _Message(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=False):
    pass


class Hello(_Message, tag="hello", frozen=True):
    """Bot -> referee, the first message on a new connection."""

    token: Annotated[str, Meta(description="The secret from ARENA_TOKEN (or --token).")]
    name: Annotated[str, Meta(description="The bot's own name, for logs (free text).")]
    protocol: Annotated[int, Meta(description="The protocol version the bot speaks (1).")]
    version: Annotated[str, Meta(description="The bot's version, stored with results.")] = ""


class Action(_Message, tag="action", frozen=True):
    """Bot -> referee: the answer to one `request`."""

    id: RequestId
    action: Annotated[Json, Meta(description="The action, in the wire form of the decision "
                                             "kind (often one of the request's options).")]


class Welcome(_Message, tag="welcome", frozen=True):
    """Referee -> bot: the handshake succeeded; games follow."""

    protocol: Annotated[int, Meta(description="The protocol version the referee speaks.")]
    name: Annotated[str, Meta(description="The name the referee knows this bot by.")]
    max_message_bytes: Annotated[int, Meta(description="The largest frame the bot may send.")]
    referee: Annotated[str, Meta(description="The referee's software version.")] = ""


class GameStart(_Message, tag="game_start", frozen=True):
    """Referee -> bot: a new game begins and this bot plays `seat` in it."""

    game: Annotated[str, Meta(description="Versioned game id, e.g. `machiavelli@1`.")]
    rules: Annotated[dict[str, Json], Meta(description="The fully resolved rule options.")]
    seat: Seat
    players: Annotated[list[str], Meta(description="The bot name in each seat, by seat.")]
    move_ms: Annotated[Millis, Meta(description="The per-move time limit.")]
    bank_ms: Annotated[Millis, Meta(description="The time bank for this game.")]
    max_faults: Annotated[int, Meta(description="Faults allowed before this seat forfeits.")]
    bot_seed: Annotated[int, Meta(ge=0, le=BOT_SEED_MAX, description=(
        "A seed for this bot's own random choices in this game (0 <= bot_seed < 2**53, "
        "exact in every JSON parser). Derived one-way from the game seed and the seat: it "
        "reveals nothing about the deal. Seeding from it makes a game replay identically."))]
    label: Annotated[str, Meta(description=(
        "A name for this game in the run (a tournament's `r1-t2-g0`, its replay file's "
        "name), also written in the bot's log where the game starts; may be empty."))] = ""


class Request(_Message, tag="request", frozen=True):
    """Referee -> bot: decide now; answer with an `action` carrying the same `id`."""

    id: Annotated[int, Meta(ge=1, description="Echo this in the `action` answering it.")]
    kind: Annotated[str, Meta(description="The decision kind (game-specific).")]
    seat: Seat
    observation: Annotated[dict[str, Json],
                           Meta(description="Everything this seat may know now.")]
    events: Annotated[list[dict[str, Json]],
                      Meta(description="Events this seat may see since its previous request "
                                       "(each has a `type`).")]
    options: Annotated[list[Json] | None,
                       Meta(description="Every legal action when the set is small, else "
                                        "null (the action is free-form).")]
    context: Annotated[dict[str, Json], Meta(description="Facts specific to this decision.")]
    move_ms: Annotated[Millis, Meta(description="Time for this move before the bank is used.")]
    bank_ms: Annotated[Millis, Meta(description="Time left in the bank.")]


class GameOver(_Message, tag="game_over", frozen=True):
    """Referee -> bot: the game ended."""

    seat: Seat
    termination: Annotated[str, Meta(description="How the game ended (completed, "
                                                 "max_rounds, blocked, forfeit, engine_error).")]
    placings: Annotated[list[int], Meta(description="Place per seat, 1 is first; ties share.")]
    scores: Annotated[list[int], Meta(description="Score per seat.")]
    forfeited: Annotated[list[int], Meta(description="Seats that forfeited (placed last).")]
    events: Annotated[list[dict[str, Json]],
                      Meta(description="Events this seat may see since its last request.")]


class Error(_Message, tag="error", frozen=True):
    """Referee -> bot: a message was rejected; the reason is in `code` and `detail`."""

    code: Annotated[ErrorCode, Meta(description="Why the message was rejected.")]
    detail: Annotated[str, Meta(description="A human-readable explanation.")]
    id: Annotated[int | None, Meta(description="The request concerned, if any.")] = None


class Shutdown(_Message, tag="shutdown", frozen=True):
    """Referee -> bot: no more games; exit now (the process is killed after a grace period)."""

    reason: Annotated[str, Meta(description="Why (e.g. `done`, `interrupted`).")] = "done"


BotMessage = Hello | Action
"""What a bot may send."""
RefereeMessage = Welcome | GameStart | Request | GameOver | Error | Shutdown
"""What the referee sends."""

BOT_MESSAGES: tuple[type[_Message], ...] = (Hello, Action)
REFEREE_MESSAGES: tuple[type[_Message], ...] = (
    Welcome, GameStart, Request, GameOver, Error, Shutdown)


def message_type(cls: type[_Message]) -> str:
    """Return the `type` tag of a message class."""
    return str(cls.__struct_config__.tag)
