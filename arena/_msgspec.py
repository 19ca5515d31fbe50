"""msgspec, first imported without typing_extensions: the import a Python bot starts with.

Why: where typing_extensions is installed (mypy needs it, so `make` puts it in the
project's .venv, which runs the sample bots), msgspec's first import takes it, and it
takes inspect, ast, dis and tokenize. That was ~15 ms of the ~100 ms of CPU a Python bot
spent starting the interpreter and importing `arena.client` (alternated, 40 starts each),
paid again at each bot start: a 14-worker run starts ~90 of them. msgspec uses it only
for typing_extensions' own `TypedDict`, `Required` and `get_type_hints`; on Python 3.11
`typing` has all three, and that is what msgspec then uses. The module is hidden only
while msgspec is first imported: a bot that imports typing_extensions itself gets it as
always (a bot giving msgspec a `typing_extensions.TypedDict` of its own is the one case
that reads differently).

Import msgspec from here before anything else imports it: `arena.client` does, first.
tests/protocol/test_client_start.py checks that a bot's start leaves typing_extensions out.
"""

from __future__ import annotations

import sys

if "msgspec" not in sys.modules and "typing_extensions" not in sys.modules:
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # import fails
    try:
        import msgspec
    finally:
        del sys.modules["typing_extensions"]

import msgspec  # noqa: E402  (the module is cached now)

__all__ = ["msgspec"]
