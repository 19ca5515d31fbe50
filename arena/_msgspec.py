"""msgspec, first imported without typing_extensions and without `platform`: the import a
Python bot starts with. Each is worth it because every bot process pays it again: a
14-worker run starts ~80 of them.

typing_extensions: where it is installed (mypy needs it, so `make` puts it in the project's
.venv, which runs the sample bots), msgspec's first import takes it, and it takes inspect,
ast, dis and tokenize. That was ~15 ms of the ~100 ms of CPU a Python bot spent starting
the interpreter and importing `arena.client` (alternated, 40 starts each). msgspec uses it
only for typing_extensions' own `TypedDict`, `Required` and `get_type_hints`; on Python
3.11 `typing` has all three, and that is what msgspec then uses. Hidden: its import fails.

platform: msgspec imports uuid, and uuid imports platform (whose import compiles a dozen
regular expressions) only to call `platform.system()` once, to know whether it runs on
Linux or AIX. uuid gets a stand-in whose `system()` answers as platform's does on a POSIX
system (`os.uname().sysname`): ~1.2 of the ~31 ms of CPU a sandboxed Python bot's start
costs from its process's start to its exit.

Each is hidden only while msgspec is first imported: a bot that imports typing_extensions
or platform itself gets the real module, as always (a bot giving msgspec a
`typing_extensions.TypedDict` of its own is the one case that reads differently).

Import msgspec from here before anything else imports it: `arena.client` does, first.
tests/protocol/test_client_start.py checks that a bot's start leaves both out.
"""

from __future__ import annotations

import os
import sys
import types


def _uname_system() -> str:
    return os.uname().sysname


def _first_import() -> None:
    """Import msgspec with the two modules hidden, then give them back."""
    hidden: dict[str, types.ModuleType | None] = {"typing_extensions": None}  # import fails
    if hasattr(os, "uname"):  # POSIX: what platform.system() reads
        stand_in = types.ModuleType("platform", "arena._msgspec's stand-in, for uuid")
        stand_in.system = _uname_system  # type: ignore[attr-defined]
        hidden["platform"] = stand_in
    hidden = {name: module for name, module in hidden.items() if name not in sys.modules}
    sys.modules.update(hidden)  # type: ignore[arg-type]  # None is how an import is refused
    try:
        import msgspec  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


if "msgspec" not in sys.modules:
    _first_import()

import msgspec  # noqa: E402  (the module is cached now)

__all__ = ["msgspec"]
