"""The `machiavelli-rummy` engine: setup, turn order, move validation and application.

One decision kind, `move`, for the seat to move: draw (a pass once the stock is empty) or
play the complete new table. A play is legal when every meld is valid, no table card has
left the table, and the cards added are a non-empty part of the mover's hand (under
`opening: meld-from-hand`, a seat's first play keeps every table meld as it is and adds
whole melds from hand). An empty hand wins at once; with an empty stock, a full round of
moves without a play ends the game (blocked). Imports only the standard library,
`arena.core` and this package.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import ClassVar

from arena.core.errors import ConfigError, IllegalAction, MalformedAction
from arena.core.game import Decision, Event, GameInfo, Json, OptionSpec, Outcome
from arena.core.options import raise_problems, resolve_options
from arena.core.rng import new_rng
from arena.games.rummy import scoring, wire
from arena.games.rummy.actions import (
    Draw,
    Play,
    RummyAction,
    action_to_wire,
    parse_action,
    wire_text,
)
from arena.games.rummy.cards import INDEX, deck, sorted_cards
from arena.games.rummy.melds import canonical, meld_problem
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.observe import observation
from arena.games.rummy.solver import required_play
from arena.games.rummy.state import RummyState

NAME = "machiavelli-rummy"
MOVE = "move"
OPENING_NONE = "none"
OPENING_MELD = "meld-from-hand"
RANDOM_PLAY_CHANCE = 0.85
"""How often the random policy plays a cheap move when it has one (else it draws)."""

OPTIONS = (
    OptionSpec("jokers", 4, "jokers in the deck (108 cards with 4, 104 without)", (4, 0)),
    OptionSpec("hand_size", 13, "cards dealt to each player (5-15; at most 13 with 5-6 "
                                "players)"),
    OptionSpec("max_jokers_per_meld", 1, "most jokers one meld may hold (>= 1)"),
    OptionSpec("draw_when_able", True, "may a player draw although a play exists? (false: "
                                       "draw or pass only when the referee's bounded "
                                       "search finds no play)"),
    OptionSpec("opening", OPENING_NONE, "first play of each player: free, or whole melds "
                                        "from hand only", (OPENING_NONE, OPENING_MELD)),
)


@lru_cache(maxsize=8192)
def _meld_problem(meld: tuple[str, ...], max_jokers: int) -> str | None:
    """`meld_problem`, remembered: a table keeps most of its melds from move to move."""
    return meld_problem(meld, max_jokers)


@lru_cache(maxsize=4)
def _required_play(hand: tuple[str, ...], table: tuple[tuple[str, ...], ...], max_jokers: int,
                   keep_table: bool) -> tuple[tuple[str, ...], ...] | None:
    """`required_play`'s table, remembered: the referee asks twice of one position, for an
    illegal draw (validate, then the default play) and for a built-in player's draw (the
    default action, then validate), and each search may take up to ~0.2 s."""
    found = required_play(hand, table, max_jokers, keep_table=keep_table)
    return None if found is None else found.table


@lru_cache(maxsize=8192)
def _canonical(meld: tuple[str, ...]) -> tuple[str, ...]:
    return canonical(meld)


class RummyGame:
    """The Italian rummy with a shared table (`machiavelli-rummy`)."""

    info: ClassVar[GameInfo] = GameInfo(
        NAME, 1, "Machiavelli, the Italian rummy with a shared table", 2, 6, OPTIONS, (MOVE,))

    def resolve_rules(self, players: int, rules: Mapping[str, Json]) -> dict[str, Json]:
        """Return the complete option set; raise `ConfigError` naming every problem."""
        resolved, problems = resolve_options(NAME, OPTIONS, rules)
        hand_size = resolved["hand_size"]
        if isinstance(hand_size, int) and not 5 <= hand_size <= 15:
            problems.append(f"option 'hand_size': {hand_size} is not within 5-15")
        if isinstance(resolved["max_jokers_per_meld"], int) \
                and resolved["max_jokers_per_meld"] < 1:
            problems.append("option 'max_jokers_per_meld' must be at least 1")
        if not 2 <= players <= 6:
            problems.append(f"{NAME} takes 2-6 players, not {players}")
        elif players > 4 and isinstance(hand_size, int) and hand_size > 13:
            problems.append(f"{players} players need hand_size <= 13, not {hand_size}")
        raise_problems(NAME, problems)
        return resolved

    def new_game(self, players: int, rules: Mapping[str, Json], seed: int) -> RummyState:
        """Shuffle, pick a dealer and deal one card at a time from the dealer's left."""
        resolved = self.resolve_rules(players, rules)
        rng = new_rng(seed)
        cards = deck(int(resolved["jokers"]))
        rng.shuffle(cards)
        dealer = rng.randrange(players)
        hands: list[list[str]] = [[] for _ in range(players)]
        for k in range(int(resolved["hand_size"]) * players):
            hands[(dealer + 1 + k) % players].append(cards.pop())
        return RummyState(players, resolved, [sorted_cards(h) for h in hands], cards, [],
                          dealer, (dealer + 1) % players, opened=[False] * players, rng=rng)

    def to_act(self, state: RummyState) -> Decision | None:
        """Return the `move` decision of the seat to move, or None once the game is over."""
        if state.over:
            return None
        context: dict[str, Json] = {
            "stock": len(state.stock), "on_draw": "draw" if state.stock else "pass",
            "draw_when_able": bool(state.rules["draw_when_able"]),
            "max_jokers_per_meld": int(state.rules["max_jokers_per_meld"]),
            "must_open_from_hand": self._must_open(state, state.to_move),
        }
        return Decision(state.to_move, MOVE, None, context)

    def parse_action(self, decision: Decision, payload: Json) -> RummyAction:
        """Parse a `move` action (see `actions`)."""
        if decision.kind != MOVE:
            raise MalformedAction(f"{NAME} has no decision kind {wire_text(decision.kind)}")
        return parse_action(payload)

    def action_to_wire(self, action: RummyAction) -> Json:
        """Return the wire form of an action."""
        return action_to_wire(action)

    def validate(self, state: RummyState, seat: int, action: RummyAction) -> None:
        """Check a move; raise `IllegalAction` saying which meld or card is wrong."""
        self._validate(state, seat, action)

    def _validate(self, state: RummyState, seat: int, action: RummyAction
                  ) -> Counter[str] | None:
        """Validate; return the cards a play takes from hand (None for a draw)."""
        if state.over:
            raise IllegalAction("the game is over")
        if seat != state.to_move:
            raise IllegalAction(f"seat {seat} may not move now: it is seat {state.to_move}'s "
                                "move")
        if isinstance(action, Play):
            return self._check_play(state, seat, action)
        if not state.rules["draw_when_able"]:
            play = self._any_play(state, seat)
            if play is not None:
                word = "draw" if state.stock else "pass"
                example = wire_text(action_to_wire(Play(play)))
                raise IllegalAction(f"you may not {word} while a play exists "
                                    f"(draw_when_able is false), e.g. {example}")
        return None

    def _must_open(self, state: RummyState, seat: int) -> bool:
        return state.rules["opening"] == OPENING_MELD and not state.opened[seat]

    def _any_play(self, state: RummyState, seat: int) -> tuple[tuple[str, ...], ...] | None:
        return _required_play(tuple(state.hands[seat]), tuple(state.table),
                              int(state.rules["max_jokers_per_meld"]),
                              self._must_open(state, seat))

    def _check_play(self, state: RummyState, seat: int, play: Play) -> Counter[str]:
        """Return the cards the play takes from hand, or raise `IllegalAction`."""
        max_jokers = int(state.rules["max_jokers_per_meld"])
        for m, meld in enumerate(play.table):
            problem = _meld_problem(tuple(meld), max_jokers)
            if problem is not None:
                # counted as the action's JSON path counts (action.table[0] is the first)
                raise IllegalAction(f"action.table[{m}] [{' '.join(meld)}]: {problem}")
        old = Counter(state.table_cards())
        new = Counter(code for meld in play.table for code in meld)
        for code in sorted_cards((old - new).keys()):
            raise IllegalAction(f"table card {code} left the table: the table holds "
                                f"{old[code]}, the new table {new[code]}; table cards never "
                                "return to a hand")
        added = new - old
        if not added:
            raise IllegalAction("the play adds no card from your hand: add at least one, "
                                "or draw")
        hand = Counter(state.hands[seat])
        for code in sorted_cards((added - hand).keys()):
            raise IllegalAction(f"card {code} does not add up: the new table has "
                                f"{added[code]} more than the table, your hand holds "
                                f"{hand[code]}")
        if self._must_open(state, seat):
            kept = Counter(tuple(sorted(m, key=INDEX.__getitem__)) for m in play.table)
            for meld in state.table:
                key = tuple(sorted(meld, key=INDEX.__getitem__))
                if kept[key] <= 0:
                    raise IllegalAction(f"meld [{' '.join(meld)}] was changed: until your "
                                        "first play is made (opening: meld-from-hand) the "
                                        "table stays as it is and you add whole melds "
                                        "from your hand")
                kept[key] -= 1
        return added

    def apply(self, state: RummyState, seat: int, action: RummyAction) -> list[Event]:
        """Validate then perform a move; all or nothing."""
        added = self._validate(state, seat, action)
        if isinstance(action, Play) and added is not None:
            events = self._play(state, seat, action, added)
        else:
            events = self._draw(state, seat)
        state.turn += 1
        if not state.over:
            state.to_move = (seat + 1) % state.players
        else:
            events.append(Event("game_end", {
                "reason": "won" if state.winner is not None else "blocked",
                "winner": state.winner, "penalties": scoring.penalties(state)}))
        return events

    def _play(self, state: RummyState, seat: int, play: Play, added: Counter[str]
              ) -> list[Event]:
        hand = Counter(state.hands[seat])
        hand.subtract(added)
        state.hands[seat] = sorted_cards(hand.elements())
        state.table = [_canonical(tuple(meld)) for meld in play.table]
        state.opened[seat] = True
        state.passes = 0
        if not state.hands[seat]:
            state.winner, state.over = seat, True
        return [Event("play", {"seat": seat, "cards": sorted_cards(added.elements()),
                               "table": [list(m) for m in state.table]})]

    def _draw(self, state: RummyState, seat: int) -> list[Event]:
        if not state.stock:
            state.passes += 1
            state.over = state.passes >= state.players
            return [Event("pass", {"seat": seat})]
        card = state.stock.pop()
        state.hands[seat] = sorted_cards([*state.hands[seat], card])
        others = frozenset(range(state.players)) - {seat}
        return [Event("draw", {"seat": seat}, others),
                Event("draw", {"seat": seat, "card": card}, frozenset({seat}))]

    def observation(self, state: RummyState, seat: int) -> dict[str, Json]:
        """Return what `seat` may know (see `observe`)."""
        return observation(state, seat)

    def observation_view(self, state: RummyState, seat: int) -> dict[str, Json]:
        """Return `observation` (it shares nothing with the state: nothing to gain)."""
        return observation(state, seat)

    def outcome(self, state: RummyState) -> Outcome | None:
        """Return the outcome once the game is over (see `scoring`)."""
        return scoring.outcome(state)

    def default_action(self, state: RummyState, seat: int) -> RummyAction:
        """Draw (a pass on an empty stock); the solver's play when drawing is illegal."""
        if not state.rules["draw_when_able"]:
            play = self._any_play(state, seat)
            if play is not None:
                return Play(play)
        return Draw()

    def random_action(self, state: RummyState, seat: int, rng: random.Random) -> RummyAction:
        """Return a legal move: often a cheap play (new meld or lay-off), else a draw."""
        plays = simple_plays(state.hands[seat], state.table,
                             int(state.rules["max_jokers_per_meld"]),
                             keep_table=self._must_open(state, seat))
        if plays and (rng.random() < RANDOM_PLAY_CHANCE or not state.rules["draw_when_able"]):
            return Play(rng.choice(plays))
        return self.default_action(state, seat)

    def to_json(self, state: RummyState) -> dict[str, Json]:
        """Return the whole state as JSON-ready data (see `state`)."""
        return state.to_json()

    def from_json(self, data: Mapping[str, Json]) -> RummyState:
        """Rebuild a state; raise `ConfigError` when the data does not describe one."""
        try:
            state = RummyState.from_json(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"not a {NAME} state: {exc!r}") from exc
        if len(state.hands) != state.players or len(state.opened) != state.players:
            raise ConfigError(f"not a {NAME} state: {state.players} players but "
                              f"{len(state.hands)} hands")
        unknown = [c for c in [*state.stock, *state.table_cards(), *sum(state.hands, [])]
                   if c not in INDEX]
        if unknown:
            raise ConfigError(f"not a {NAME} state: unknown cards {unknown[:5]}")
        return state

    def clone(self, state: RummyState) -> RummyState:
        """Return an independent copy."""
        return state.clone()

    def wire_schemas(self) -> dict[str, Json]:
        """Return the JSON Schemas of the observation, actions, events and decisions."""
        return wire.schemas()
