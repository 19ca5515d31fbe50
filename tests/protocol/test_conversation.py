"""The example conversation of PROTOCOL.md is what the referee produces today, and every
message in it is valid against the schemas."""

from __future__ import annotations

import json
import logging

import jsonschema
import pytest

from arena.protocol.schema import load_schema
from tests.protocol.conversation import PATH, ROOT, markdown, render


def test_conversation_file_is_current(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    assert PATH.read_text() == render(), "run `python -m tests.protocol.conversation`"


def test_protocol_md_shows_the_conversation_as_it_is(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)  # its game_start lines lacked `label` for a while
    assert markdown() in (ROOT / "protocol" / "PROTOCOL.md").read_text(), \
        "paste `python -m tests.protocol.conversation --markdown` into PROTOCOL.md §11"


def test_every_message_of_the_conversation_is_valid() -> None:
    lines = [json.loads(line) for line in PATH.read_text().splitlines()]
    kinds = set()
    for line in lines:
        message = line["message"]
        side = "bot_message" if line["to"] == "referee" else "referee_message"
        jsonschema.validate(message, load_schema(side))
        jsonschema.validate(message, load_schema(message["type"]))
        kinds.add(message["type"])
    assert kinds == {"hello", "welcome", "game_start", "request", "action", "error",
                     "game_over", "shutdown"}
    ids = [m["message"]["id"] for m in lines if m["message"]["type"] == "request"]
    assert ids == sorted(set(ids))
