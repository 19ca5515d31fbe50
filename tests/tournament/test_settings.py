"""The one settings record: what a run stores, read back (also from older or damaged
settings), and the only road to standings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.core.record import GameRecord
from arena.tournament.config import load_config
from arena.tournament.settings import RULES, Change, Settings
from arena.tournament.store import GameKey, StoredGame

FILE = """\
name: s
game: machiavelli
players_per_game: 3
format: swiss
rounds: 3
points: [3, 1, 0]
bye_points: 1
seed: 4
bots:
""" + "".join(f"  - {{name: b{i}, cmd: 'builtin:random'}}\n" for i in range(4))


def test_settings_store_the_keys_runs_always_stored_and_read_back(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(FILE)
    settings = Settings.of(load_config(file))
    stored = settings.to_json()
    assert stored == {"name": "s", "game": "machiavelli@1", "format": "swiss",
                      "bots": ["b0", "b1", "b2", "b3"], "points": [3.0, 1.0, 0.0],
                      "bye_points": 1.0, "table_size": 3, "seed": 4, "rounds": 3,
                      "rating": "plackett-luce", "rules": RULES}
    assert Settings.from_json(stored) == settings
    changed = settings.with_change([Change("b1", 2)], [Change("late", 1)])
    again = Settings.from_json(changed.to_json())
    assert again == changed and again.bots[-1] == "late"
    assert again.active(2) == ["b0", "b1", "b2", "b3", "late"]
    assert again.active(3) == ["b0", "b2", "b3", "late"]


def game(*bots: str) -> StoredGame:
    seats = [{"seat": i, "bot": b, "version": "", "placing": i + 1, "score": 0, "faults": 0,
              "timeouts": 0, "forfeit": None, "time_ms": 0.0} for i, b in enumerate(bots)]
    record = GameRecord.from_json({"game": "machiavelli", "seed": 1, "rules": {},
                                   "seats": seats, "termination": "completed",
                                   "decisions": 0, "faults": [], "replay": None})
    return StoredGame(GameKey(1, 0, 0), record)


def test_older_or_damaged_settings_still_give_standings() -> None:
    games = [game("x", "y"), game("y", "x"), game("x", "y")]
    for stored in ({}, {"bots": "not a list", "table_size": "two", "points": 7},
                   {"format": "swiss", "seed": None}):
        table = Settings.from_json(stored, games).standings(games, [])
        assert [r.bot for r in table.rows] == ["x", "y"] and table.games == 3


def test_every_format_and_rater_is_registered() -> None:
    # the runner reaches formats and raters only through these registries
    from arena.tournament.config import Format
    from arena.tournament.formats import SCHEDULES
    from arena.tournament.ratings import BATCH, ONLINE, ONLINE_RATERS, RATERS

    assert set(SCHEDULES) == set(Format)
    assert BATCH in RATERS and ONLINE in ONLINE_RATERS
    rated = RATERS[BATCH]().fit([[("a", 1), ("b", 2)], [("b", 1), ("a", 2)]])
    assert rated.ratings["a"].elo == rated.ratings["b"].elo == 1500
    online = ONLINE_RATERS[ONLINE]()
    online.update([("a", 1), ("b", 2)])
    assert online.rating("a") > 1500 > online.rating("b")


def test_a_round_robin_with_unequal_games_ranks_by_points_per_game() -> None:
    # issue 11: 13 bots at tables of 3 play 5 or 6 games, byes scoring nothing; a bye must
    # neither help nor hurt. x: 2 wins in 2 games; y: 3 wins and a loss in 4
    games = [game("x", "z"), game("x", "z"), game("y", "z"), game("y", "z"), game("y", "z"),
             game("z", "y")]
    settings = Settings(format="round-robin", bots=("x", "y", "z"))
    rows = settings.standings(games, []).rows
    assert [r.bot for r in rows][:2] == ["x", "y"] and rows[0].points < rows[1].points
    swiss = replace(settings, format="swiss").standings(games, []).rows
    assert [r.bot for r in swiss][:2] == ["y", "x"]  # a Swiss scores byes: total points
