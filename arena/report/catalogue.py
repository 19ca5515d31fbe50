"""What the viewer needs to draw a game's cards, read from the game's own data.

Districts and characters are listed from the engine's card tables, never from a list kept
here: a district or character added to the game shows with its name, colour and cost
without a change to the report. A game without an entry is drawn from its observation
alone (ids as they are).
"""

from __future__ import annotations

from collections.abc import Callable

from arena.core.game import Json


def _machiavelli() -> dict[str, Json]:
    from arena.games.machiavelli import cards

    return {
        "districts": {d.id: {"name": d.display, "type": d.type.value, "cost": d.cost}
                      for d in cards.DISTRICTS.values()},
        "characters": {c.wire: {"name": c.name.replace("_", " ").title(), "rank": c.rank}
                       for c in cards.Character},
    }


CATALOGUES: dict[str, Callable[[], dict[str, Json]]] = {"machiavelli": _machiavelli}
"""Per game name (without version): the function that lists its cards for the viewer."""


def catalogue(game: str) -> dict[str, Json]:
    """Return the card catalogue of a game id (`machiavelli@1`), empty when it has none."""
    make = CATALOGUES.get(game.split("@")[0])
    return make() if make is not None else {}
