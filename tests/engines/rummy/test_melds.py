"""Table-driven meld validity (REFERENCE.md Part 2, section 2.2; DECISIONS.md game 2)."""

from __future__ import annotations

import pytest

from arena.games.rummy.melds import canonical, meld_problem

RUN13 = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]

CASES = [
    # (id, cards, max_jokers, valid, words expected in the reason)
    ("ace-low-run", ["AS", "2S", "3S"], 1, True, ""),
    ("ace-high-run", ["QD", "KD", "AD"], 1, True, ""),
    ("wrap-K-A-2", ["KC", "AC", "2C"], 1, False, "K-A-2"),
    ("13-card-run", RUN13, 1, True, ""),
    ("13-card-run-ace-high", [*RUN13[1:], "AH"], 1, True, ""),
    ("14-card-run", [*RUN13, "AH"], 4, False, "at most 13"),
    ("group-of-3", ["7S", "7H", "7D"], 1, True, ""),
    ("group-of-4", ["7S", "7H", "7D", "7C"], 1, True, ""),
    ("group-two-of-one-suit", ["7S", "7H", "7H"], 1, False, "different suits"),
    ("group-5-cards", ["7S", "7H", "7D", "7C", "JK"], 2, False, "at most 4"),
    ("two-jokers-default", ["7S", "JK", "JK"], 1, False, "2 jokers"),
    ("two-jokers-allowed", ["7S", "JK", "JK"], 2, True, ""),
    ("two-jokers-run-allowed", ["5S", "JK", "7S", "JK"], 2, True, ""),
    ("joker-inside-run", ["5S", "JK", "7S"], 1, True, ""),
    ("joker-low-end", ["JK", "QS", "KS", "AS"], 1, True, ""),
    ("joker-high-end", ["2S", "3S", "4S", "JK"], 1, True, ""),
    ("joker-after-ace-high", ["QS", "KS", "AS", "JK"], 1, True, ""),
    ("joker-in-group", ["9C", "JK", "9D"], 1, True, ""),
    ("joker-cannot-fill-two-gaps", ["5S", "JK", "8S"], 1, False, "does not make a run"),
    ("two-cards", ["5S", "6S"], 1, False, "at least 3"),
    ("only-jokers", ["JK", "JK", "JK"], 4, False, "natural"),
    ("mixed-suits-and-ranks", ["5S", "6H", "7S"], 1, False, "not a group"),
    ("duplicate-in-run", ["5S", "5S", "6S", "7S"], 1, False, "twice"),
    ("unsorted-run", ["9H", "7H", "8H"], 1, True, ""),
    ("ace-both-ends", ["AS", "2S", "3S", "QS", "KS"], 1, False, "does not make a run"),
]


@pytest.mark.parametrize(("cards", "max_jokers", "valid", "words"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_meld(cards: list[str], max_jokers: int, valid: bool, words: str) -> None:
    problem = meld_problem(cards, max_jokers)
    if valid:
        assert problem is None
    else:
        assert problem is not None and words in problem


@pytest.mark.parametrize(("cards", "shown"), [
    (["9H", "7H", "8H"], ("7H", "8H", "9H")),
    (["AD", "KD", "QD"], ("QD", "KD", "AD")),
    (["3S", "AS", "2S"], ("AS", "2S", "3S")),
    (["7S", "JK", "5S"], ("5S", "JK", "7S")),
    (["JK", "2S", "3S"], ("2S", "3S", "JK")),
    (["AS", "JK", "KS"], ("JK", "KS", "AS")),
    (["7C", "7S", "JK", "7H"], ("7S", "7H", "7C", "JK")),
], ids=["run", "ace-high", "ace-low", "joker-gap", "joker-top", "joker-below-ace-high",
        "group"])
def test_canonical_order(cards: list[str], shown: tuple[str, ...]) -> None:
    assert canonical(cards) == shown
    assert meld_problem(list(shown), 1) is None
