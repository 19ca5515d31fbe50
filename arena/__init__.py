"""arena: a tournament runner for game-playing bots."""

__version__ = "0.1.0"
