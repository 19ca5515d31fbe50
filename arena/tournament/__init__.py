"""Tournaments: config (YAML), pairing, ratings, standings, the results store and the runner.

Pairing, standings and ratings are pure functions of stored results; the runner is the only
part that starts processes. Imports `arena.core` and `arena.referee.spec`, never rich.
"""
