"""The `machiavelli` engine (Citadels, revised 2016/2021 rules): 2-8 players.

`GAME` implements the `arena.core.game.Game` protocol. Modules: cards (data), actions (wire
values), state (mutable state + JSON), setup (options, deal), draft (selection phase), turn
(legal actions), effects (their application), rules (the loop), observe (redaction),
scoring (pure). Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar

from arena.core.game import Decision, GameInfo, Json, Outcome

from . import rules, scoring, setup, wire
from . import state as st
from .actions import Action, Kind, parse
from .observe import observation, observation_view
from .state import Legal, Phase, State

__all__ = ["GAME", "Machiavelli", "State", "Action"]


class Machiavelli:
    """The Machiavelli engine: stateless; every method acts on a `State`."""

    info: ClassVar[GameInfo] = GameInfo(
        name="machiavelli", version=1, title="Machiavelli (Citadels, revised rules)",
        min_players=setup.MIN_PLAYERS, max_players=setup.MAX_PLAYERS,
        options=setup.OPTIONS, decision_kinds=tuple(k.value for k in Kind),
    )

    def resolve_rules(self, players: int, rules_: Mapping[str, Json]) -> dict[str, Json]:
        """Return the complete option set. Raises ConfigError listing every problem."""
        return setup.resolve(players, rules_)

    def new_game(self, players: int, rules_: Mapping[str, Json], seed: int) -> State:
        """Deal a game and run it to the first decision (the first character pick)."""
        state = setup.new_state(players, rules_, seed)
        rules.settle(state)
        return state

    def to_act(self, state: State) -> Decision | None:
        """Return the current decision, or None when the game is over."""
        current = state.cache or rules.legal(state)
        return None if current is None else current.decision

    def parse_action(self, decision: Decision, payload: Json) -> Action:
        """Parse a wire payload for `decision`. Raises MalformedAction."""
        return parse(decision.kind, payload)

    def action_to_wire(self, action: Action) -> Json:
        """Return the wire form of `action`."""
        return action.to_wire()

    def validate(self, state: State, seat: int, action: Action) -> None:
        """Raise IllegalAction unless `action` is legal for `seat` now."""
        current: Legal | None = state.cache
        # an action the engine chose or already checked needs no second look (no call at all)
        if current is None or current.checked is not action or seat != current.decision.seat:
            rules.validate(state, seat, action)

    # the module functions themselves, without a delegating call (they run at every decision)
    apply = staticmethod(rules.apply)
    """Validate and perform an action; all or nothing (`rules.apply`)."""
    observation = staticmethod(observation)
    """Return what a seat may know now (`observe.observation`)."""
    observation_view = staticmethod(observation_view)
    """Return the observation sharing the state's lists, to encode at once
    (`observe.observation_view`)."""

    def outcome(self, state: State) -> Outcome | None:
        """Return the outcome once the game is over."""
        return scoring.final_outcome(state) if state.phase == Phase.OVER else None

    def default_action(self, state: State, seat: int) -> Action:
        """Return the first legal option (options are ordered safest first)."""
        current = self._current(state)
        current.checked = action = current.actions[0]
        return action

    def random_action(self, state: State, seat: int, rng: random.Random) -> Action:
        """Return a uniformly chosen legal action."""
        current: Legal | None = state.cache  # `_current` inlined: one call less
        if current is None or not current.actions:
            current = self._current(state)
        # choice(seq) draws exactly as seq[randrange(len(seq))] did, so games are unchanged
        current.checked = action = rng.choice(current.actions)
        return action

    def legal_actions(self, state: State) -> tuple[Action, ...]:
        """Return the legal actions of the current decision (empty when over)."""
        current = state.cache or rules.legal(state)
        return () if current is None else current.actions

    @staticmethod
    def _current(state: State) -> Legal:
        current = state.cache or rules.legal(state)
        if current is None or not current.actions:
            raise ValueError("the game is over: no action to choose")
        return current

    def catalog(self) -> dict[str, dict[str, str]]:
        """Return the named values of the options, for `arena games`: title -> name -> text."""
        return setup.catalog()

    def to_json(self, state: State) -> dict[str, Json]:
        """Return the whole state as JSON-ready data."""
        return st.to_json(state)

    def from_json(self, data: Mapping[str, Json]) -> State:
        """Rebuild a state from `to_json` data."""
        return st.from_json(data)

    def clone(self, state: State) -> State:
        """Return an independent copy."""
        return st.clone(state)

    def wire_schemas(self) -> dict[str, Json]:
        """Return the JSON Schemas of the observation, actions, events and decisions."""
        return wire.schemas()


GAME = Machiavelli()
