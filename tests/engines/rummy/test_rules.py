"""Rule scenarios: plays that rebuild the table, rejected plays with their reasons, drawing,
the opening and draw-when-able options, the end of the game and the placings."""

from __future__ import annotations

import pytest

from arena.core.errors import ConfigError, IllegalAction, MalformedAction
from arena.core.game import Termination
from arena.games.rummy import GAME
from arena.games.rummy.actions import Draw, Play

from .helpers import scenario

TABLE = [["7H", "8H", "9H"], ["QS", "QD", "QC"]]


def play(*melds: list[str]) -> Play:
    return Play(tuple(tuple(m) for m in melds))


def test_play_that_rebuilds_the_table() -> None:
    """Split the run 7H-8H-9H, adding 10H and a group of 7s from hand."""
    state = scenario([["7S", "7D", "10H", "KD"], ["2C"]], TABLE)
    events = GAME.apply(state, 0, play(["8H", "9H", "10H"], ["7H", "7S", "7D"],
                                       ["QC", "QS", "QD"]))
    assert state.hands[0] == ["KD"]
    assert sorted(map(tuple, state.table)) == sorted(
        [("8H", "9H", "10H"), ("7S", "7H", "7D"), ("QS", "QD", "QC")])
    assert events[0].kind == "play" and events[0].data["cards"] == ["7S", "10H", "7D"]
    assert events[0].visible_to is None
    assert state.to_move == 1


BAD_PLAYS = [
    ("invalid-meld", [["7H", "8H", "9H"], ["QS", "QD", "QC"], ["KD", "7S", "7D"]],
     "action.table[2] [KD 7S 7D]: not a group"),
    ("table-card-taken", [["8H", "9H", "10H"], ["7H", "7S", "7D"]],
     "table card QS left the table"),
    ("card-not-in-hand", [["7H", "8H", "9H", "10H", "JH"], ["QS", "QD", "QC"]],
     "card JH does not add up"),
    ("second-copy-not-in-hand", [["7H", "8H", "9H", "10H"], ["QS", "QD", "QC"],
                                 ["10H", "JH", "QH"]],
     "card 10H does not add up: the new table has 2"),
    ("nothing-added", [["QS", "QD", "QC"], ["9H", "8H", "7H"]], "adds no card"),
    ("too-short", [["7H", "8H"], ["9H", "10H", "JH"], ["QS", "QD", "QC"]],
     "action.table[0] [7H 8H]: a meld needs at least 3 cards"),
]


@pytest.mark.parametrize(("table", "reason"), [c[1:] for c in BAD_PLAYS],
                         ids=[c[0] for c in BAD_PLAYS])
def test_rejected_play_names_the_meld_or_card(table: list[list[str]], reason: str) -> None:
    state = scenario([["7S", "7D", "10H", "KD"], ["2C"]], TABLE)
    before = GAME.to_json(state)
    with pytest.raises(IllegalAction, match=reason.replace("[", r"\[").replace("]", r"\]")):
        GAME.apply(state, 0, play(*table))
    assert GAME.to_json(state) == before


def test_wrong_seat_is_rejected() -> None:
    state = scenario([["KD"], ["2C"]], [])
    with pytest.raises(IllegalAction, match="seat 0's move"):
        GAME.apply(state, 1, Draw())


def test_draw_is_private_to_the_drawer() -> None:
    state = scenario([["KD"], ["2C"], ["3C"]], [], stock=["5S", "9D"])
    events = GAME.apply(state, 0, Draw())
    assert state.hands[0] == ["9D", "KD"]
    public = [e for e in events if e.visible(1)]
    mine = [e for e in events if e.visible(0)]
    assert [e.data for e in public] == [{"seat": 0}]
    assert [e.data for e in mine] == [{"seat": 0, "card": "9D"}]
    assert all(e.visible(2) == e.visible(1) for e in events)


def test_empty_hand_wins_at_once_and_placings_follow_penalties() -> None:
    state = scenario([["10H"], ["AS", "JK"], ["KD", "2C", "3C", "4C", "5C"]], TABLE)
    GAME.apply(state, 0, play(["7H", "8H", "9H", "10H"], ["QS", "QD", "QC"]))
    outcome = GAME.outcome(state)
    assert outcome is not None and GAME.to_act(state) is None
    assert outcome.termination is Termination.COMPLETED
    assert outcome.placings == (1, 3, 2)  # 36 penalty vs 24
    assert outcome.scores == (0, -36, -24)


def test_blocked_game_ends_after_a_round_of_passes_with_shared_places() -> None:
    state = scenario([["KD", "2C"], ["QH", "2S"], ["5S", "8D"]], TABLE, stock=[])
    for seat in range(3):
        assert GAME.to_act(state) is not None
        events = GAME.apply(state, seat, Draw())
        assert events[0].kind == "pass"
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.termination is Termination.BLOCKED
    assert outcome.placings == (1, 1, 3)
    assert outcome.details["turns"] == 3


def test_a_play_resets_the_pass_count() -> None:
    state = scenario([["KD", "2C"], ["10H", "2S"]], TABLE, stock=[])
    GAME.apply(state, 0, Draw())
    GAME.apply(state, 1, play(["7H", "8H", "9H", "10H"], ["QS", "QD", "QC"]))
    GAME.apply(state, 0, Draw())
    assert GAME.outcome(state) is None


def test_draw_when_able_false_forbids_drawing_when_a_play_exists() -> None:
    state = scenario([["10H", "KD"], ["2C"]], TABLE, draw_when_able=False)
    with pytest.raises(IllegalAction, match="may not draw while a play exists"):
        GAME.validate(state, 0, Draw())
    action = GAME.default_action(state, 0)
    assert isinstance(action, Play)
    GAME.apply(state, 0, action)
    assert state.hands[0] == ["KD"]


def test_draw_when_able_false_allows_drawing_without_a_play() -> None:
    state = scenario([["2C", "KD"], ["2S"]], TABLE, draw_when_able=False)
    assert GAME.default_action(state, 0) == Draw()
    GAME.apply(state, 0, Draw())


def test_draw_when_able_false_sees_plays_that_need_a_rebuild() -> None:
    """7S and 7D fit only by taking 7H out of the run and adding 10H to keep it valid."""
    state = scenario([["7S", "7D", "10H"], ["2S"]], TABLE, draw_when_able=False)
    with pytest.raises(IllegalAction):
        GAME.validate(state, 0, Draw())


def test_opening_meld_from_hand() -> None:
    state = scenario([["10H", "5S", "6S", "7S"], ["2C"]], TABLE, opening="meld-from-hand")
    with pytest.raises(IllegalAction, match="was changed"):
        GAME.validate(state, 0, play(["7H", "8H", "9H", "10H"], ["QS", "QD", "QC"]))
    GAME.apply(state, 0, play(*TABLE, ["5S", "6S", "7S"]))
    assert state.opened == [True, False]
    decision = GAME.to_act(state)
    assert decision is not None and decision.context["must_open_from_hand"] is True
    GAME.apply(state, 1, Draw())
    GAME.apply(state, 0, play(["7H", "8H", "9H", "10H"], ["QS", "QD", "QC"], ["5S", "6S", "7S"]))


def test_parse_action_errors_name_the_place() -> None:
    decision = GAME.to_act(scenario([["KD"], ["2C"]], []))
    assert decision is not None and decision.options is None
    with pytest.raises(MalformedAction, match=r'action.table\[0\]\[1\]: "XX" is not a card'):
        GAME.parse_action(decision, {"type": "play", "table": [["7H", "XX", "9H"]]})
    with pytest.raises(MalformedAction, match='"draw" or "play"'):
        GAME.parse_action(decision, {"type": "discard"})
    with pytest.raises(MalformedAction, match="unknown fields"):
        GAME.parse_action(decision, {"type": "draw", "card": "7H"})
    wire = {"type": "play", "table": [["7H", "8H", "9H"]]}
    assert GAME.action_to_wire(GAME.parse_action(decision, wire)) == wire


@pytest.mark.parametrize(("players", "rules", "words"), [
    (7, {}, "2-6 players"),
    (5, {"hand_size": 15}, "hand_size <= 13"),
    (2, {"hand_size": 3}, "within 5-15"),
    (2, {"jokers": 2}, "not one of 4, 0"),
    (2, {"max_jokers_per_meld": 0}, "at least 1"),
    (2, {"opening": "36"}, "not one of none"),
])
def test_bad_options_are_reported(players: int, rules: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        GAME.resolve_rules(players, rules)


def test_options_and_deal() -> None:
    state = GAME.new_game(6, {"jokers": 0}, 3)
    assert [len(h) for h in state.hands] == [13] * 6
    assert len(state.stock) == 104 - 78
    assert state.to_move == (state.dealer + 1) % 6
