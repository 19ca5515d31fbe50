"""A heuristic bot for `machiavelli`: gathers, builds the dearest district it can, uses the
characters that pay, and never faults (it always answers with one of the request's options).

Run by the referee (`--bot g="python sample_bots/python/greedy_bot.py"`) or by hand with
--endpoint and --token.
"""

from __future__ import annotations

from typing import Any

from arena.client import Request, run

COST = {
    "manor": 3, "castle": 4, "palace": 5, "temple": 1, "church": 2, "monastery": 3,
    "cathedral": 5, "tavern": 1, "market": 2, "trading_post": 2, "docks": 3, "harbor": 4,
    "town_hall": 5, "watchtower": 1, "prison": 2, "barracks": 3, "fortress": 5,
    "dragon_gate": 6, "factory": 5, "haunted_quarter": 2, "imperial_treasury": 5, "keep": 3,
    "laboratory": 5, "library": 6, "map_room": 5, "quarry": 5, "school_of_magic": 6,
    "smithy": 5, "statue": 3, "thieves_den": 6, "wishing_well": 5,
}
CHARACTER_ORDER = ["architect", "merchant", "king", "warlord", "bishop", "tax_collector",
                   "queen", "artist", "thief", "magician", "assassin"]
"""Characters from the most to the least wanted."""
VICTIMS = ["merchant", "architect", "king", "warlord", "bishop", "tax_collector", "queen",
           "artist", "magician", "thief"]
Option = dict[str, Any]


def first(options: list[Option], *types: str) -> Option | None:
    """Return the first option whose type is one of `types`."""
    return next((o for o in options if o["type"] in types), None)


def by_preference(options: list[Option], order: list[str]) -> Option:
    """Return the option naming the most preferred character."""
    return min(options, key=lambda o: order.index(o["character"])
               if o.get("character") in order else len(order))


def turn(request: Request, options: list[Option]) -> Option:
    obs = request.observation
    me = obs["seat"]
    builds = [o for o in options if o["type"] == "build"]
    if builds:
        return max(builds, key=lambda o: COST.get(o["district"], 0))
    for kind in ("collect_income", "take_tax"):
        if (option := first(options, kind)) is not None:
            return option
    if request.context.get("gathered") is False:
        wants_cards = not obs["hand"] or all(COST.get(d, 9) > obs["gold"][me] + 4
                                             for d in obs["hand"])
        choice = first(options, "gather_cards" if wants_cards else "gather_gold")
        if choice is not None:
            return choice
    attacks = [o for o in options if o["type"] in ("kill", "rob")]
    if attacks:
        return by_preference(attacks, VICTIMS)
    swaps = [o for o in options if o["type"] == "swap_hands"]
    if swaps:
        richest = max(swaps, key=lambda o: obs["hand_sizes"][o["seat"]])
        if obs["hand_sizes"][richest["seat"]] > len(obs["hand"]) + 1:
            return richest
    return first(options, "end_turn") or options[0]


def act(request: Request) -> Option:
    options: list[Option] = list(request.options or [])
    if request.kind in ("pick_character", "discard_character"):
        best = by_preference(options, CHARACTER_ORDER)
        if request.kind == "pick_character":
            return best
        return by_preference(options, CHARACTER_ORDER[::-1])
    if request.kind == "keep_card":
        gold = request.observation["gold"][request.observation["seat"]]
        affordable = [o for o in options if COST.get(o["district"], 9) <= gold + 2]
        return max(affordable or options, key=lambda o: COST.get(o["district"], 0))
    if request.kind == "turn":
        return turn(request, options)
    return options[0]  # exchange_cards / thieves_den: `done` (or the safe first option)


if __name__ == "__main__":
    run(act, name="greedy", version="1.0")
