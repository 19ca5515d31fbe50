"""The Python client's decoding: a `request` parsed lazily reads the same as a full parse."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from arena.client import Request, decode_message
from arena.core.record import FaultKind
from arena.protocol import GameStart, WireError, decode_referee, encode
from arena.protocol import Request as WireRequest

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"


def wire_request(**changes: object) -> WireRequest:
    full = decode_referee((EXAMPLES / "request.json").read_bytes())
    assert isinstance(full, WireRequest)
    return msgspec.structs.replace(full, **changes)


def test_a_lazy_request_reads_like_the_full_parse() -> None:
    full = wire_request(events=[{"type": "gold", "seat": 1, "amount": 2}])
    lazy = decode_message(encode(full))
    assert isinstance(lazy, Request)
    fields = ("id", "kind", "seat", "options", "context", "move_ms", "bank_ms", "observation",
              "events")
    assert {f: getattr(lazy, f) for f in fields} == {f: getattr(full, f) for f in fields}
    assert lazy.observation is lazy.observation  # parsed once, then kept
    assert repr(lazy).startswith(f"Request(id={full.id}, kind={full.kind!r}")


def test_a_request_built_by_hand_holds_its_values() -> None:
    request = Request(id=3, kind="k", seat=1, observation={"a": 1}, events=[{"type": "x"}],
                      options=None, context={}, move_ms=5, bank_ms=0)
    assert (request.observation, request.events, request.options) == ({"a": 1},
                                                                       [{"type": "x"}], None)


def test_a_bad_observation_is_a_wire_error_when_read() -> None:
    frame = encode(wire_request()).replace(b'"observation":{', b'"observation":[{', 1)
    frame = frame.replace(b',"events":', b'],"events":', 1)
    lazy = decode_message(frame)
    assert isinstance(lazy, Request)
    with pytest.raises(WireError, match="request.observation") as caught:
        _ = lazy.observation
    assert caught.value.kind is FaultKind.BAD_MESSAGE


@pytest.mark.parametrize("frame, kind", [(b"{", FaultKind.NOT_JSON),
                                         (b'{"type":"request","id":1}', FaultKind.BAD_MESSAGE),
                                         (b'{"type":"nope"}', FaultKind.BAD_MESSAGE)])
def test_a_bad_frame_is_a_wire_error(frame: bytes, kind: FaultKind) -> None:
    with pytest.raises(WireError) as caught:
        decode_message(frame)
    assert caught.value.kind is kind


def test_other_messages_decode_to_the_protocol_types() -> None:
    frame = (EXAMPLES / "game_start.json").read_bytes()
    message = decode_message(frame)
    assert isinstance(message, GameStart)
    assert message == decode_referee(frame)
