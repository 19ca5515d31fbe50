"""The ladder: a standing league that bots join, update and leave while it keeps running.

A ladder directory holds `ladder.yaml` (game, rules, time control, sandbox: as a
tournament file, without bots), one SQLite database (`results.sqlite`, WAL: the games as
a tournament stores them, plus the ladder's versions, runs, ratings and snapshots),
`replays/` and `logs/`. `arena ladder run` plays more games with the tournament layer's
workers, referee and sandbox; see docs/ladder.md.

Modules: `config` (ladder.yaml), `versions` (content hashes), `members` (init, add,
retire), `store` (the database), `read` (the read API: versions, standings, history, for
the CLI and `arena report`), `columns` (the stored seats as arrays), `rating` (online
beliefs and the batch fit), `matchmaking` (which tables to play), `run` (a cron-safe
run), `worker` (what a run's worker process does before its referee).
"""
