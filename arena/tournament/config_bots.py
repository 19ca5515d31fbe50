"""The bots of a tournament file: each entry of `bots:` read into a `BotSpec` (its problems each
naming the bot), and the checks that its command can start (`bot_problems`), made before any
game by `config.preflight`, and by `arena play` and `arena check-bot` too.

Imports only the problem collector of the file (`config_problems`), never the tournament's own
keys (`config_builder`), which read the bots through `BotEntries`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.referee.players import BUILTINS
from arena.referee.spec import BOT_NAME, BOT_NAME_RULE, BotSpec, Restart
from arena.tournament.config_problems import Problems
from arena.tournament.isolation import bot_network
from arena.tournament.yamlpos import LineDict, LineList

PYTHON_PLACEHOLDER = "{python}"
"""In a bot's `cmd`, replaced by the interpreter running arena (`sys.executable`)."""
PYTHONS = ("python", "python3")
"""A command's first word that means the interpreter running arena too: the `python` on an
organiser's PATH may be a shim (pyenv's) that cannot run in the sandbox, and lacks
`arena.client`; every bot passed its checks and then forfeited. A Python of one's own is
named by its path."""


def with_python(parts: Sequence[str]) -> tuple[str, ...]:
    """A bot's argv with `{python}`, and a first word in `PYTHONS` (after `stdio:`), as the
    interpreter running arena."""
    argv = [part.replace(PYTHON_PLACEHOLDER, sys.executable) for part in parts]
    if argv:
        prefix = "stdio:" if argv[0].startswith("stdio:") else ""
        if argv[0].removeprefix(prefix) in PYTHONS:
            argv[0] = prefix + sys.executable
    return tuple(argv)


BOT_KEYS = ("name", "cmd", "cwd", "env", "restart", "network")
PROCESS_KEYS = ("cwd", "env", "restart", "network")
"""The keys of a bot that only a bot run as a process reads."""


class BotEntries:
    """Reads the `bots:` of a file into `BotSpec`s, adding problems as it goes."""

    def __init__(self, problems: Problems, base: Path) -> None:
        self.p = problems
        self.base = base
        self.unused: list[str] = []
        """Warnings of keys that change nothing, in the file's order."""
        self.listed = 0
        """The file's bot entries, those refused for a problem too: whether they can fill a
        table is said of the file as it will be once they are fixed."""
        self.checks: list[tuple[int, str, BotSpec]] = []
        """Each bot entry with a command to look up (its line, how it is named, its command
        and cwd), the bots refused for another problem too."""

    def read(self, doc: LineDict) -> tuple[list[BotSpec], dict[str, int]]:
        """The bots of `doc` that have no problem, and the line of each by its name."""
        value = doc.get("bots")
        if value is None or value == []:  # the builder's `_no_bots` says what the format needs
            return [], {}
        if not isinstance(value, LineList):
            self.p.add(doc.line_of("bots"), "'bots' must be a list of bots, each a "
                       "mapping with 'name' and 'cmd'")
            return [], {}
        bots: list[BotSpec] = []
        lines: dict[str, int] = {}
        self.listed = len(value)
        for item, line in zip(value, value.item_lines, strict=True):
            bot = self._bot(item, line)
            # by the name written: a bot refused for another problem still takes its name
            name = item.get("name") if isinstance(item, LineDict) else None
            if isinstance(name, str) and name in lines:
                self.p.add(line, f"bot name {name!r} is already used on line {lines[name]}")
                continue
            if isinstance(name, str):
                lines[name] = line
            if bot is not None:
                bots.append(bot)
        return bots, {b.name: lines[b.name] for b in bots}

    def check_commands(self) -> None:
        """Add each bot entry's command problems, a refused bot's too: a bot refused for a
        bad `restart` or `env` had its missing script said only once that was fixed."""
        for line, who, spec in self.checks:
            for problem in bot_problems(spec):
                self.p.add(line, f"{who}: {problem}")

    def _bot(self, item: Any, line: int) -> BotSpec | None:
        if not isinstance(item, LineDict):
            shown = repr(item) if len(repr(item)) <= 60 else f"a {type(item).__name__}"
            self.p.add(line, f"each bot is a mapping with 'name' and 'cmd', not {shown}")
            return None
        who = _who(item)  # every problem of one bot names it: the file may list dozens
        self.p.unknown_keys(who, item, BOT_KEYS)
        ok = self._bot_name(item)
        argv = _argv(item.get("cmd"))
        if argv is None:
            wrong = "'cmd' must be" if "cmd" in item else "no 'cmd': it needs"
            self.p.add(item.line_of("cmd"), f"{who}: {wrong} a command string or a non-empty "
                       "list of strings")
        restart = item.get("restart", Restart.NEVER.value)
        if restart not in [r.value for r in Restart]:
            self.p.add(item.line_of("restart"), f"{who}: 'restart' {restart!r} is not valid; "
                       "valid: " + ", ".join(r.value for r in Restart))
            ok = False
        env = item.get("env", {})
        if not isinstance(env, dict) or not all(
                isinstance(v, str | int | float) for v in env.values()):
            self.p.add(item.line_of("env"), f"{who}: 'env' must map names to strings")
            ok = False
        cwd = item.get("cwd")
        cwd_ok = cwd is None or (isinstance(cwd, str) and "\0" not in cwd)
        if not cwd_ok:
            self.p.add(item.line_of("cwd"), f"{who}: 'cwd' must be a directory path")
        network = bot_network(item, self.p.add, who)
        if argv is None or not cwd_ok:
            return None  # no command, or no directory to look it up in
        directory = str((self.base / cwd).resolve()) if cwd else str(self.base)
        self.checks.append((line, who, BotSpec(str(item.get("name")), argv, directory)))
        if not ok:
            return None
        if argv[0].startswith("builtin:"):
            self._builtin_keys(item, who)
        return BotSpec(str(item["name"]), argv, directory,
                       {str(k): str(v) for k, v in env.items()}, Restart(restart),
                       network=network)

    def _builtin_keys(self, item: LineDict, who: str) -> None:
        """A warning at each key a built-in bot ignores: it plays inside the referee, with no
        process to give a directory, an environment, a restart rule or a network (a
        `cwd: nodir` passed without a word, as if it had been checked)."""
        for key in PROCESS_KEYS:
            if key in item:
                self.unused.append(f"{self.p.source}:{item.line_of(key)}: {who}: {key!r} has "
                                   f"no effect: {item['cmd']} plays inside the referee, "
                                   "with no process")

    def _bot_name(self, item: LineDict) -> bool:
        """Whether a bot's name is valid (else one problem says why)."""
        name = item.get("name")
        if isinstance(name, str) and BOT_NAME.match(name):
            return True
        rule = f"{BOT_NAME_RULE} (it names files and command-line arguments)"
        if "name" not in item or name is None:
            cmd = item.get("cmd")
            shown = f" (cmd {cmd!r})" if isinstance(cmd, str | list) else ""
            self.p.add(item.line_of("name"), f"a bot without a 'name'{shown}: each bot "
                       f"needs a unique name of {rule}")
        else:
            self.p.add(item.line_of("name"), f"bot name {name!r} must be {rule}")
        return False


SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".rb", ".jar", ".pl", ".sh")


def bot_problems(bot: BotSpec) -> list[str]:
    """What keeps one bot from starting: an unknown built-in, a cwd that is no directory,
    a program or script that is missing or not executable (`_command_problems`)."""
    if bot.builtin is not None:
        return [] if bot.builtin in BUILTINS else [
            f"unknown built-in bot {bot.cmd[0]!r}; valid: "
            + ", ".join(f"builtin:{b}" for b in BUILTINS)]
    cwd = Path(bot.cwd or ".")
    try:
        if not cwd.is_dir():
            return [f"cwd {cwd} is not a directory"]
        return _command_problems(bot.cmd, cwd)
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte: a line, no traceback
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return [f"its command or cwd cannot be looked up: {why}"]


INTERPRETER = re.compile(r"(python|node|ruby|perl|bash|sh|php|lua|Rscript)[\d.]*")
"""Programs (`python3.11` too) whose first argument, unless an option, is the script they
run: `{python} bots/mybot`, a script without a suffix, was found missing only by the game."""


def _command_problems(cmd: Sequence[str], cwd: Path) -> list[str]:
    """What is missing of a bot's command: its program, or not executable; a script file
    (by its suffix, or as an interpreter's first argument)."""
    program = cmd[0].removeprefix("stdio:")  # a stdio bot runs behind the bridge
    found = shutil.which(program, path=None) if "/" not in program else (
        str(cwd / program) if (cwd / program).is_file() else None)
    if found is None:
        return [f"command {program!r} not found"]
    found_problems = [] if os.access(found, os.X_OK) else [f"{program!r} is not executable "
                                                           "(chmod +x it)"]
    name = os.path.basename(program)
    script = cmd[1] if len(cmd) > 1 and not cmd[1].startswith("-") and \
        INTERPRETER.fullmatch(name) else None
    for arg in cmd[1:]:
        if (arg.endswith(SCRIPT_SUFFIXES) or arg == script) and not (cwd / arg).is_file():
            found_problems.append(f"file {arg!r} not found in {cwd.resolve()}")
    return found_problems


def _who(item: LineDict) -> str:
    """How a bot's problems name it: `bot 'alice'`, or `the bot without a 'name'`."""
    name = item.get("name")
    return f"bot {name!r}" if isinstance(name, str) and name else "the bot without a 'name'"


def _argv(cmd: Any) -> tuple[str, ...] | None:
    if isinstance(cmd, str):
        try:
            parts = shlex.split(cmd)
        except ValueError:
            return None
    elif isinstance(cmd, list) and all(isinstance(c, str | int | float) for c in cmd):
        parts = [str(c) for c in cmd]
    else:
        return None
    if not parts:
        return None
    return with_python(parts)
