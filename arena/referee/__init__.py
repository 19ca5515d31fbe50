"""The referee: bot processes, the ZeroMQ transport, clocks, and `run_game`, the only loop
that joins an engine and the bots. The tournament layer uses `Referee` and `run_game`.
"""

from __future__ import annotations

from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.referee import Referee
from arena.referee.spec import BotSpec, FaultPolicy, Restart, TimeControl

__all__ = ["BotSpec", "FaultPolicy", "Referee", "Restart", "SeatPlayer", "TimeControl",
           "run_game"]
