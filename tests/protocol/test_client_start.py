"""A Python bot's start: `arena.client` imports msgspec without typing_extensions and
without platform (`arena/_msgspec.py`: ~15 and ~1.2 ms of CPU a bot start), and hides
nothing from the bot after; the cyclic collector waits for the import
(`arena/_quiet_import.py`) and runs again after it, unless the bot had stopped it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

PROBE = """
import sys
import arena.client
print(sorted(name for name in ("typing_extensions", "inspect", "platform")
             if name in sys.modules))
import typing_extensions  # the bot's own imports still work, and get the real modules
import platform
import uuid
print(typing_extensions.__name__, arena.client.decode_message is not None)
print(platform.python_version() == "%d.%d.%d" % sys.version_info[:3])
print(uuid._LINUX == (sys.platform == "linux"), uuid.UUID(int=1).int)
"""


def test_the_client_starts_without_typing_extensions_and_the_bot_may_import_it() -> None:
    # mypy, in the test extras, brings typing_extensions: without it this would prove nothing
    assert importlib.util.find_spec("typing_extensions") is not None
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[]", "typing_extensions True", "True", "True 1"]


COLLECTOR = """
import gc
import sys
if sys.argv[1] == "off":
    gc.disable()
import arena.client
print(gc.isenabled(), gc.get_freeze_count() > 10_000)
"""


def test_the_collector_runs_again_after_the_import_with_its_objects_frozen() -> None:
    def after(state: str) -> str:
        return subprocess.run([sys.executable, "-c", COLLECTOR, state], capture_output=True,
                              text=True, check=True).stdout.strip()

    assert after("on") == "True True"  # the import's objects are left out of collections
    assert after("off") == "False True"  # a bot that stopped the collector keeps it stopped


DEFERRED = """
import sys
import arena.client
import msgspec
print(sorted(name for name in ("textwrap", "msgspec._json_schema", "msgspec.inspect")
             if type(sys.modules.get(name)).__name__ == "module"))
first = sys.argv[1]
if first == "schema":
    print(msgspec.json.schema(list[int]))
print(msgspec.inspect.type_info(list[int]).item_type)
print(msgspec.json.schema(list[int]))
import msgspec.inspect as mi
print(mi is msgspec.inspect is sys.modules["msgspec.inspect"], msgspec.json.schema.__module__)
"""


def test_msgspec_inspect_and_the_json_schema_are_imported_at_first_use() -> None:
    def lines(first: str) -> list[str]:
        return subprocess.run([sys.executable, "-c", DEFERRED, first], capture_output=True,
                              text=True, check=True).stdout.splitlines()

    schema = "{'type': 'array', 'items': {'type': 'integer'}}"
    tail = ["IntType(gt=None, ge=None, lt=None, le=None, multiple_of=None)", schema,
            "True msgspec._json_schema"]  # the real modules and function, once used
    assert lines("inspect") == ["[]"] + tail  # none of the three at the start
    assert lines("schema") == ["[]", schema] + tail  # the schema first imports both
