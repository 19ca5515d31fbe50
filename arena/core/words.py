"""Counted nouns in what arena prints: "1 game", "3 games", never "game(s)".

In `core` so that every ring may use it (an engine's fault text, the referee's alarms,
the tournament's messages, the commands' lines).
"""

from __future__ import annotations

IRREGULAR = {"this": "these", "was": "were", "is": "are", "has": "have"}
"""Plurals no rule below makes (a verb or pronoun that agrees with a count, too)."""


def plural(noun: str, n: int) -> str:
    """`noun` as it reads after the count `n`: its last word made plural unless n is 1."""
    if n == 1:
        return noun
    head, _, last = noun.rpartition(" ")
    return f"{head} {_plural_word(last)}" if head else _plural_word(last)


def count_of(n: int, noun: str) -> str:
    """`n` and `noun` as they read together: count_of(1, "game") is "1 game",
    count_of(3, "mismatch") is "3 mismatches", count_of(2, "more alarm") "2 more alarms"."""
    return f"{n} {plural(noun, n)}"


def _plural_word(word: str) -> str:
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"
