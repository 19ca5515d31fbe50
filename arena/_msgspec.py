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

msgspec.inspect and msgspec._json_schema (type introspection and `msgspec.json.schema`,
which no bot needs to play; the second imports textwrap, which compiles regular expressions):
msgspec imports both with itself. They are deferred (`_Deferred`): each is imported at the
first read of one of its names, and from then on `msgspec.inspect`, `msgspec.json.schema`
and `schema_components` are the real ones. ~1.4 of the ~24 ms of CPU of the interpreter
and `import arena.client` (alternated, 60 starts each).

Import msgspec from here before anything else imports it: `arena.client` does, first.
tests/protocol/test_client_start.py checks that a bot's start leaves them out.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Callable


def _uname_system() -> str:
    return os.uname().sysname


_INSPECT, _SCHEMA = "msgspec.inspect", "msgspec._json_schema"


class _Deferred(types.ModuleType):
    """A stand-in for one of msgspec's modules: the real one is imported at the first read
    of a name the stand-in lacks."""

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # what import machinery probes for: not a use
            raise AttributeError(name)
        return getattr(_load(self.__name__), name)


def _load(name: str) -> types.ModuleType:
    """Import the real `name` in the stand-in's place (msgspec.inspect first: the schema
    module imports it) and put it where msgspec's own names pointed at the stand-in."""
    if isinstance(sys.modules.get(_INSPECT), _Deferred):
        del sys.modules[_INSPECT]
        sys.modules["msgspec"].__dict__["inspect"] = importlib.import_module(_INSPECT)
    if name == _SCHEMA and isinstance(sys.modules.get(_SCHEMA), _Deferred):
        del sys.modules[_SCHEMA]
        real = importlib.import_module(_SCHEMA)
        sys.modules["msgspec.json"].__dict__.update(schema=real.schema,
                                                    schema_components=real.schema_components)
    return sys.modules[name]


def _schema_stand_in() -> _Deferred:
    """msgspec.json takes two functions from the schema module as it is imported: they
    import it when first called."""
    module = _Deferred(_SCHEMA, "arena._msgspec's stand-in: imported at first use")

    def later(function: str) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            return getattr(_load(_SCHEMA), function)(*args, **kwargs)
        call.__name__ = call.__qualname__ = function
        return call

    module.__dict__.update(schema=later("schema"), schema_components=later("schema_components"))
    return module


def _first_import() -> None:
    """Import msgspec with the two modules hidden and two deferred, then give back the
    hidden ones."""
    hidden: dict[str, types.ModuleType | None] = {"typing_extensions": None}  # import fails
    if hasattr(os, "uname"):  # POSIX: what platform.system() reads
        stand_in = types.ModuleType("platform", "arena._msgspec's stand-in, for uuid")
        stand_in.system = _uname_system  # type: ignore[attr-defined]
        hidden["platform"] = stand_in
    hidden = {name: module for name, module in hidden.items() if name not in sys.modules}
    sys.modules.update(hidden)  # type: ignore[arg-type]  # None is how an import is refused
    deferred = {_INSPECT: _Deferred(_INSPECT, "arena._msgspec's stand-in: imported at first "
                                              "use"), _SCHEMA: _schema_stand_in()}
    sys.modules.update({name: module for name, module in deferred.items()
                        if name not in sys.modules})
    try:
        import msgspec  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


if "msgspec" not in sys.modules:
    _first_import()

import msgspec  # noqa: E402  (the module is cached now)

__all__ = ["msgspec"]
