"""The wire messages: schemas in sync with the Python types, examples valid, codec total."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.core.record import FaultKind
from arena.protocol import (
    Action,
    Error,
    ErrorCode,
    Hello,
    Request,
    WireError,
    decode_bot,
    decode_referee,
    encode,
)
from arena.protocol.codec import MAX_CONTAINERS, peek
from arena.protocol.schema import PACKAGE_DIR, REPO_DIR, drift, generate, load_schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "protocol" / "examples").glob("*.json"))


def test_repo_schemas_match_the_message_types() -> None:
    assert drift(REPO_DIR) == [], "run `python -m arena.protocol.schema`"


def test_package_copy_is_identical_to_the_repo_schemas() -> None:
    assert drift(PACKAGE_DIR) == []
    repo = {p.name: p.read_text() for p in REPO_DIR.glob("*.json")}
    package = {p.name: p.read_text() for p in PACKAGE_DIR.glob("*.json")}
    assert repo == package


def test_drift_is_detected(tmp_path: Path) -> None:
    for name, text in generate().items():
        (tmp_path / name).write_text(text)
    assert drift(tmp_path) == []
    (tmp_path / "request.schema.json").write_text("{}")
    (tmp_path / "old.schema.json").write_text("{}")
    assert len(drift(tmp_path)) == 2


def test_every_schema_is_a_valid_schema_with_descriptions() -> None:
    for name, text in generate().items():
        schema = json.loads(text)
        jsonschema.Draft202012Validator.check_schema(schema)
        if "$defs" not in schema:  # a game's own schema (Game.wire_schemas)
            assert schema["description"], name
            continue
        for struct in schema["$defs"].values():
            for field, prop in struct.get("properties", {}).items():
                assert field == "type" or "description" in prop or "$ref" in prop, (name, field)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_validate_and_decode(path: Path) -> None:
    data = json.loads(path.read_text())
    jsonschema.validate(data, load_schema(data["type"]))
    side = "bot_message" if data["type"] in ("hello", "action") else "referee_message"
    jsonschema.validate(data, load_schema(side))
    decode = decode_bot if side == "bot_message" else decode_referee
    message = decode(path.read_bytes())
    assert msgspec.to_builtins(message) == data  # no field lost or renamed


def test_every_message_type_has_an_example() -> None:
    assert {p.stem for p in EXAMPLES} >= {
        "hello", "welcome", "game_start", "request", "action", "game_over", "error", "shutdown"}


def test_round_trip_and_tags() -> None:
    hello = Hello(token="t", name="n", protocol=1, version="2")
    assert json.loads(encode(hello))["type"] == "hello"
    assert decode_bot(encode(hello)) == hello
    error = Error(code=ErrorCode.STALE_ID, detail="d", id=3)
    assert decode_referee(encode(error)) == error


@pytest.mark.parametrize(
    ("frame", "kind"),
    [
        (b"not json", FaultKind.NOT_JSON),
        (b'{"type": "action", "id": 1, "action": "\xff"}', FaultKind.NOT_JSON),
        (b'{"type": "action", "id": 1', FaultKind.NOT_JSON),
        (b"[1, 2]", FaultKind.BAD_MESSAGE),
        (b'{"type": "action", "action": 1}', FaultKind.BAD_MESSAGE),
        (b'{"type": "action", "id": "1", "action": 1}', FaultKind.BAD_MESSAGE),
        (b'{"type": "action", "id": 0, "action": 1}', FaultKind.BAD_MESSAGE),
        (b'{"type": "welcome", "protocol": 1}', FaultKind.BAD_MESSAGE),
        (b'{"id": 1, "action": 1}', FaultKind.BAD_MESSAGE),
        (b"x" * 101, FaultKind.OVERSIZE),
    ],
)
def test_bad_frames_are_classified(frame: bytes, kind: FaultKind) -> None:
    with pytest.raises(WireError) as info:
        decode_bot(frame, limit=100)
    assert info.value.kind is kind


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    message = decode_bot(b'{"type": "action", "id": 4, "action": null, "note": "hi"}')
    assert message == Action(id=4, action=None)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_only_raise_wire_errors(frame: bytes) -> None:
    try:
        decode_bot(frame)
    except WireError:
        pass


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["hello", "action", "request", None]))
def test_random_json_only_raise_wire_errors(value: Any, tag: str | None) -> None:
    if tag is not None:
        value = {"type": tag, "payload": value}
    try:
        message = decode_bot(json.dumps(value).encode())
    except WireError:
        return
    assert isinstance(message, Hello | Action)


def test_request_encodes_none_options_as_null() -> None:
    request = Request(id=1, kind="k", seat=0, observation={}, events=[], options=None,
                      context={}, move_ms=5, bank_ms=0)
    assert json.loads(encode(request))["options"] is None


def test_a_frame_that_is_not_json_is_quoted_in_its_fault() -> None:
    """A debugging line sent where the protocol goes is recognisable in the fault."""
    with pytest.raises(WireError) as info:
        decode_bot(b"debug: thinking about move 3")
    assert str(info.value).endswith('the message begins "debug: thinking about move 3"')
    with pytest.raises(WireError) as info:
        decode_bot(b"\xff" + b"y" * 200)
    assert str(info.value).endswith('the message begins "\ufffd' + "y" * 59 + '" ...')


def test_an_action_of_too_many_arrays_is_refused_whatever_its_depth() -> None:
    # 500,000 small lists, 1 MiB, within the depth: its walk cost the referee 0.2 s a frame
    ok = decode_bot(encode(Action(id=1, action=[[]] * (MAX_CONTAINERS - 1))))
    assert isinstance(ok, Action)
    with pytest.raises(WireError) as info:
        decode_bot(encode(Action(id=1, action=[[]] * 300_000)))
    assert info.value.kind is FaultKind.BAD_MESSAGE
    assert f"holds more than {MAX_CONTAINERS} arrays" in info.value.detail
    assert gc.isenabled()  # off while it was decoded, on again


@pytest.mark.parametrize(("frame", "head"), [
    (b'{"type": "action", "id": 7, "action": [[[]]], "x": 1}', ("action", 7)),
    (b'{"type": "action", "id": 7}', ("action", None)),  # no action: decode_bot says so
    (b'{"type": "action", "id": true, "action": 1}', ("action", None)),
    (b'{"type": "action", "id": 0, "action": 1}', ("action", None)),
    (b'{"type": "hello", "token": "t", "name": "n", "protocol": 1}', ("hello", None)),
    (b'[1]', None), (b"\xff", None), (b'{"type": "action", "id": 7, "action": ' +
                                       b"[" * 100_000 + b"]" * 100_000 + b"}", None),
])
def test_peek_reads_a_frames_type_and_action_id_only(frame: bytes,
                                                     head: tuple[str, int | None] | None) -> None:
    assert peek(frame) == head
