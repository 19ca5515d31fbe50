"""PROTOCOL.md covers every message, field, code and decision kind the code defines."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.record import FaultKind, ForfeitReason
from arena.games import REGISTRY
from arena.protocol.messages import (
    BOT_MESSAGES,
    REFEREE_MESSAGES,
    BotMessage,
    ErrorCode,
    RefereeMessage,
    message_type,
)

DOC = (Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md").read_text()


@pytest.mark.parametrize("cls", [*BOT_MESSAGES, *REFEREE_MESSAGES],
                         ids=lambda c: message_type(c))
def test_every_message_and_field_is_documented(cls: type[BotMessage | RefereeMessage]) -> None:
    name = message_type(cls)
    marks = (f" `{name}` (", f"**`{name}`**")
    headings = [line for line in DOC.splitlines()
                if line.startswith("### 4.") and any(mark in line for mark in marks)]
    assert len(headings) == 1, name
    section = DOC[DOC.index(headings[0]):]
    section = section[:section.index("\n### ", 1)]
    for field in cls.__struct_fields__:
        assert f"| `{field}` |" in section, f"{name}.{field}"


def test_every_code_and_reason_is_documented() -> None:
    for value in [*ErrorCode, *FaultKind, *ForfeitReason]:
        assert f"`{value.value}`" in DOC, value


def test_every_machiavelli_decision_kind_is_documented() -> None:
    section = DOC[DOC.index("## 9. Game `machiavelli`"):DOC.index("## 10.")]
    for kind in REGISTRY.get("machiavelli").info.decision_kinds:
        assert f"`{kind}`" in section, kind


def test_every_rummy_decision_kind_and_action_is_documented() -> None:
    section = DOC[DOC.index("## 10. Game `machiavelli-rummy`"):DOC.index("## 11.")]
    for kind in REGISTRY.get("machiavelli-rummy").info.decision_kinds:
        assert f"`{kind}`" in section, kind
    for action in ('{"type": "draw"}', '{"type": "play", "table": ['):
        assert action in section, action


def test_every_machiavelli_action_and_event_is_documented() -> None:
    import random

    from arena.games.machiavelli import GAME
    from arena.games.machiavelli.actions import ActionType

    section = DOC[DOC.index("## 9. Game `machiavelli`"):DOC.index("## 10.")]
    for action_type in ActionType:
        assert f'"type":"{action_type.value}"' in section, action_type
    kinds: set[str] = set()
    rules = {"cast": "random", "district_preset": "random"}
    for seed in range(40):
        state = GAME.new_game(2 + seed % 7, rules, seed)
        policy = random.Random(seed)
        while (decision := GAME.to_act(state)) is not None:
            action = GAME.random_action(state, decision.seat, policy)
            kinds.update(e.kind for e in GAME.apply(state, decision.seat, action))
    missing = sorted(k for k in kinds if f"`{k}`" not in section)
    assert not missing, f"events missing from PROTOCOL.md §9.5: {missing}"
