"""Tournament files: YAML -> `TournamentConfig`, reporting every problem at once with its line.

The loader never stops at the first problem: it collects them all (each as `file:line: what,
and what is valid`) and raises one `ConfigError`. `preflight` checks that the bots' commands
exist, before any game starts. See docs/tournaments.md for the file format.

The entry point the rest of arena imports from; the parts live beside it: the problem
collector and the reading of YAML text (`config_problems`), the validated values
(`config_types`), the bot entries and their commands' checks (`config_bots`) and the
tournament's own keys (`config_builder`).
"""

from __future__ import annotations

from pathlib import Path

from arena.core.errors import ConfigError
from arena.core.registry import Registry
from arena.referee.spec import BotSpec
from arena.tournament.config_bots import (
    BOT_KEYS,
    INTERPRETER,
    PROCESS_KEYS,
    PYTHON_PLACEHOLDER,
    PYTHONS,
    SCRIPT_SUFFIXES,
    bot_problems,
    with_python,
)
from arena.tournament.config_builder import (
    DEFAULT_MAX_GAMES,
    FAULT_KEYS,
    MAX_CONCURRENCY,
    MAX_GAMES,
    MAX_MS,
    MAX_NAME,
    SEED_LIMIT,
    TIME_KEYS,
    TRANSPORTS,
    Builder,
)
from arena.tournament.config_problems import Problems, decode_utf8, load_document
from arena.tournament.config_types import (
    FORMAT_WORDS,
    REQUIRED,
    TOP_KEYS,
    TOURNAMENT_FILE,
    UNSCORED,
    FileKind,
    Format,
    TableSize,
    TournamentConfig,
    bots_needed,
    count_games,
)

__all__ = [
    "BOT_KEYS", "DEFAULT_MAX_GAMES", "FAULT_KEYS", "FORMAT_WORDS", "INTERPRETER",
    "MAX_CONCURRENCY", "MAX_GAMES", "MAX_MS", "MAX_NAME", "PROCESS_KEYS", "PYTHONS",
    "PYTHON_PLACEHOLDER", "REQUIRED", "SCRIPT_SUFFIXES", "SEED_LIMIT", "TIME_KEYS", "TOP_KEYS",
    "TOURNAMENT_FILE", "TRANSPORTS", "UNSCORED", "FileKind", "Format", "TableSize",
    "TournamentConfig", "bot_problems", "bots_needed", "count_games", "decode_utf8",
    "load_config", "parse_config", "preflight", "with_python",
]


def load_config(path: Path, registry: Registry | None = None, *,
                commands: bool = False) -> TournamentConfig:
    """Read and validate a tournament file (`commands`: with `preflight`'s checks of the
    bots' commands among the problems, where there are others; else call it after).

    Raises:
        ConfigError: every problem in the file, each with its line.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read tournament file {path}: {exc.strerror}") from exc
    return parse_config(decode_utf8(data, str(path)), str(path), path.resolve().parent,
                        registry, commands=commands)


def parse_config(text: str, source: str = "<string>", base: Path | None = None,
                 registry: Registry | None = None,
                 kind: FileKind = TOURNAMENT_FILE, *, commands: bool = False) -> TournamentConfig:
    """Validate tournament YAML `text`; relative bot `cwd`s resolve against `base`.

    `kind` names the keys allowed and required (a ladder's file has no bots).

    Raises:
        ConfigError: every problem found, each with its line.
    """
    if registry is None:
        from arena.games import REGISTRY

        registry = REGISTRY
    problems = Problems(source, kind.what)
    doc = load_document(text, problems, (*kind.required, *(
        k for k in kind.keys if k not in kind.required))[:3])
    config = Builder(doc, problems, base or Path.cwd(), registry, kind,
                     commands).build(text)
    problems.raise_if_any()
    assert config is not None
    return config


def preflight(config: TournamentConfig) -> None:
    """Check that every bot's program (and script file) exists, before any game starts.

    Raises:
        ConfigError: every missing command or script, with the line of its bot.
    """
    problems = Problems(config.source)
    for bot in config.bots:
        for problem in bot_problems(bot):
            problems.add(_line(config, bot), f"bot {bot.name!r}: {problem}")
    problems.raise_if_any()


def _line(config: TournamentConfig, bot: BotSpec) -> int:
    return (config.bot_lines or {}).get(bot.name, 1)
