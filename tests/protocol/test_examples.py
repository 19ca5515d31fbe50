"""The examples show what the referee really sends: fully resolved rules in `game_start`
(PROTOCOL.md §4.3) and fault details that quote the action as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from arena.games import REGISTRY

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"


def test_game_start_example_rules_are_fully_resolved() -> None:
    start = json.loads((EXAMPLES / "game_start.json").read_text())
    engine = REGISTRY.get(start["game"])
    resolved = engine.resolve_rules(len(start["players"]), start["rules"])
    assert start["rules"] == resolved
    assert list(start["rules"]) == [option.name for option in engine.info.options]


def test_error_example_quotes_the_illegal_action_as_json() -> None:
    error = json.loads((EXAMPLES / "error.json").read_text())
    action, end = json.JSONDecoder().raw_decode(error["detail"])
    assert action == {"type": "build", "district": "palace"}
    assert error["detail"][end:].startswith(" is not legal for seat 1 now")
    conversation = [json.loads(line)["message"]
                    for line in (EXAMPLES / "conversation.jsonl").read_text().splitlines()]
    assert error in conversation  # the example is what the referee sent in the game


def test_the_request_example_is_a_request_the_referee_sent() -> None:
    """Found by a bot author writing from PROTOCOL.md alone: the example's observation
    lacked six fields the game's observation schema requires (it predated them)."""
    import jsonschema

    request = json.loads((EXAMPLES / "request.json").read_text())
    conversation = [json.loads(line)["message"]
                    for line in (EXAMPLES / "conversation.jsonl").read_text().splitlines()]
    assert request in conversation
    schemas = EXAMPLES.parent / "schemas"
    observation = json.loads((schemas / "machiavelli.observation.schema.json").read_text())
    jsonschema.validate(request["observation"], observation)
