"""Produce PROTOCOL.md's examples of every decision kind and every action of a game, taken
from real games: seeded random play under the defaults and each declared option choice, at
every table size, until each kind and each action type (the `type` values of the game's
action schema) has been seen.

`python -m tests.protocol.decision_examples` rewrites the block between the game's markers
in protocol/PROTOCOL.md; tests/protocol/test_decision_examples.py checks that the block
covers every kind and action the engine has and that each example is valid. Rerun it when a
game gains a decision kind or an action.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.core.game import Decision, Json
from arena.core.rng import derive_seed
from arena.games import REGISTRY
from arena.protocol.schema import load_game_schema
from tests.engines.test_contract import option_sets, playable

DOC = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"
GAMES = ("machiavelli", "machiavelli-rummy")
"""The games whose PROTOCOL.md section carries a generated block."""
SEEDS_PER_SETTING = 12
READABLE_OPTIONS = 8
"""An example with at most this many options is preferred (shorter to read)."""


def markers(game: str) -> tuple[str, str]:
    return (f"<!-- generated: decision examples of {game} "
            "(python -m tests.protocol.decision_examples) -->",
            f"<!-- end of generated decision examples of {game} -->")


def action_types(game: str) -> list[str]:
    """Every action `type` of the game, from its action schema."""
    return list(load_game_schema(game, "action")["properties"]["type"]["enum"])


def wire(value: Json) -> str:
    return json.dumps(value, separators=(", ", ": "))


@dataclass
class Examples:
    """The first readable example of each decision kind and each action type."""

    kinds: dict[str, dict[str, Json]] = field(default_factory=dict)
    actions: dict[str, tuple[Json, set[str]]] = field(default_factory=dict)

    def note(self, decision: Decision, chosen: Json) -> None:
        options = list(decision.options) if decision.options is not None else None
        shown = self.kinds.get(decision.kind)
        readable = options is None or len(options) <= READABLE_OPTIONS
        if shown is None or (readable and not shown["readable"]):
            self.kinds[decision.kind] = {"kind": decision.kind,
                                         "context": dict(decision.context),
                                         "options": options, "action": chosen,
                                         "readable": readable}
        for action in options if options is not None else [chosen]:
            kind_of = action.get("type") if isinstance(action, dict) else None
            if isinstance(kind_of, str):
                example, kinds = self.actions.setdefault(kind_of, (action, set()))
                kinds.add(decision.kind)


def settings(game: str) -> list[tuple[dict[str, Json], int]]:
    """(rules, players) for every declared option choice at every table it allows."""
    engine = REGISTRY.get(game)
    return [(rules, players) for rules in option_sets(engine.info)
            for players in playable(engine, rules)]


def collect(game: str) -> Examples:
    """Play seeded random games until every kind and action type has an example."""
    engine = REGISTRY.get(game)
    kinds, types = set(engine.info.decision_kinds), set(action_types(game))
    examples = Examples()
    for seed in range(SEEDS_PER_SETTING):
        for rules, players in settings(game):
            state: Any = engine.new_game(players, rules, derive_seed(seed, "examples"))
            policy = random.Random(seed)
            while (decision := engine.to_act(state)) is not None:
                action = engine.random_action(state, decision.seat, policy)
                examples.note(decision, engine.action_to_wire(action))
                engine.apply(state, decision.seat, action)
            if kinds <= set(examples.kinds) and types <= set(examples.actions):
                return examples
    return examples


def render(game: str) -> str:
    """The generated block (markers included) for `game`."""
    engine = REGISTRY.get(game)
    examples = collect(game)
    begin, end = markers(game)
    lines = [begin, "", "Each decision kind as a request carries it (`kind`, `context`, "
             "`options`; the other fields are in §4.4), then an answer (its `id` echoes "
             "the request's):", ""]
    for kind in engine.info.decision_kinds:
        example = examples.kinds.get(kind)
        if example is None:
            lines += [f"- `{kind}`: no example found in the games played", ""]
            continue
        request = {key: example[key] for key in ("kind", "context", "options")}
        lines += [f"- `{kind}`", "  ```json", f"  {wire(request)}",
                  f"  {wire({'type': 'action', 'id': 1, 'action': example['action']})}",
                  "  ```"]
    lines += ["", "Every action type, the decision kinds it answers, and an example:", "",
              "| action | answers | example |", "|---|---|---|"]
    for action_type in action_types(game):
        found = examples.actions.get(action_type)
        if found is None:
            lines.append(f"| `{action_type}` | | no example found in the games played |")
            continue
        action, answers = found
        kinds = ", ".join(f"`{k}`" for k in engine.info.decision_kinds if k in answers)
        lines.append(f"| `{action_type}` | {kinds} | `{wire(action)}` |")
    return "\n".join([*lines, "", end])


def updated(text: str, game: str) -> str:
    """`text` with the game's block replaced (the markers must be present once)."""
    begin, end = markers(game)
    start, stop = text.index(begin), text.index(end) + len(end)
    return text[:start] + render(game) + text[stop:]


def main() -> int:
    text = DOC.read_text()
    for game in GAMES:
        text = updated(text, game)
    DOC.write_text(text)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
