"""PROTOCOL.md shows every decision kind and every action type of each game with an example
from a real game (tests/protocol/decision_examples.py), and every example is valid: the
request part against the game's decision schema, the answer against the action schemas,
and the engine parses the answer for that decision."""

from __future__ import annotations

import json
import re

import pytest

from arena.core.errors import MalformedAction
from arena.core.game import Decision, Json
from arena.games import REGISTRY
from tests.protocol.decision_examples import DOC, GAMES, action_types, markers, render
from tests.protocol.game_schemas import conforms, message_conforms

HINT = "run `python -m tests.protocol.decision_examples`"


def block(text: str, game: str) -> str:
    begin, end = markers(game)
    assert text.count(begin) == 1 and text.count(end) == 1, f"markers of {game}: {HINT}"
    return text[text.index(begin):text.index(end)]


def kind_examples(text: str) -> dict[str, tuple[dict[str, Json], dict[str, Json]]]:
    """Kind -> (request part, action message), from the block's json fences."""
    found = {}
    pattern = r"^- `(\w+)`\n  ```json\n  (.+)\n  (.+)\n  ```$"
    for kind, request, answer in re.findall(pattern, text, flags=re.MULTILINE):
        found[kind] = (json.loads(request), json.loads(answer))
    return found


def action_examples(text: str) -> dict[str, tuple[list[str], Json]]:
    """Action type -> (kinds it answers, example), from the block's table."""
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*) \| `(.+)` \|$", text, flags=re.MULTILINE)
    return {t: (re.findall(r"`(\w+)`", kinds), json.loads(example))
            for t, kinds, example in rows}


@pytest.mark.parametrize("game", GAMES)
def test_every_kind_has_a_valid_example(game: str) -> None:
    engine = REGISTRY.get(game)
    examples = kind_examples(block(DOC.read_text(), game))
    assert set(examples) == set(engine.info.decision_kinds), HINT
    for kind, (request, answer) in examples.items():
        assert request["kind"] == kind
        conforms(game, "decision", request)
        message_conforms("action", answer)
        conforms(game, "action", answer["action"])
        options = request["options"]
        decision = Decision(0, kind, None if options is None else tuple(options),
                            request["context"])
        engine.parse_action(decision, answer["action"])
        assert options is None or answer["action"] in options


@pytest.mark.parametrize("game", GAMES)
def test_every_action_type_has_a_valid_example(game: str) -> None:
    engine = REGISTRY.get(game)
    examples = action_examples(block(DOC.read_text(), game))
    assert list(examples) == action_types(game), HINT
    for action_type, (kinds, example) in examples.items():
        assert kinds and set(kinds) <= set(engine.info.decision_kinds), action_type
        conforms(game, "action", example)
        assert example["type"] == action_type
        for kind in kinds:
            engine.parse_action(Decision(0, kind), example)
        for other in set(engine.info.decision_kinds) - set(kinds):
            with pytest.raises(MalformedAction):
                engine.parse_action(Decision(0, other), example)


@pytest.mark.parametrize("game", GAMES)
def test_real_games_find_every_kind_and_action(game: str) -> None:
    """The engine reaches each kind and action in the games the generator plays, so the
    block can always be regenerated in full (a kind no game reaches would show here)."""
    assert "no example found" not in render(game)
