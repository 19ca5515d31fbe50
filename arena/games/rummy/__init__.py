"""`machiavelli-rummy`: the Italian rummy with a shared table, as a pure engine.

Modules: `cards` (codes, deck, penalties), `melds` (validity), `melds_gen` and `solver`
(the table solver), `moves` (cheap plays), `actions` (wire form), `state`, `rules` (the
engine), `observe` (hidden information), `scoring`. Rules and house decisions:
docs/rummy.md. Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.games.rummy.rules import RummyGame

GAME = RummyGame()

__all__ = ["GAME", "RummyGame"]
