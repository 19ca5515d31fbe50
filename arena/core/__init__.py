"""Game-agnostic contracts: no I/O, no third-party imports, nothing from outer rings.

Everything a game engine, the referee and the tournament runner agree on lives here.
"""
