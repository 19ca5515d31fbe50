"""The problems of a file read as a tournament file: their collector, and reading its text (UTF-8,
then YAML with the line of every key and item) into problems rather than tracebacks.

Kept apart from `config.py` so that the bot entries (`config_bots`) and the tournament's own keys
(`config_builder`) add to one collector without importing each other.
"""

from __future__ import annotations

import yaml

from arena.core.errors import ConfigError
from arena.core.options import suggest
from arena.core.words import count_of
from arena.tournament.yamlpos import LineDict, load


class Problems:
    """Collects `source:line: message` strings."""

    def __init__(self, source: str, what: str = "tournament file") -> None:
        self.source, self.what = source, what
        self.items: list[tuple[int, str]] = []

    def add(self, line: int, message: str) -> None:
        self.items.append((line, message))

    def unknown_keys(self, where: str, mapping: LineDict, valid: tuple[str, ...]) -> None:
        for key in mapping:
            if key not in valid:
                self.add(mapping.line_of(key), f"unknown key {key!r} in {where}"
                         f"{suggest(key, list(valid))}; valid: {', '.join(valid)}")

    def raise_if_any(self) -> None:
        if self.items:
            lines = [f"{self.source}:{line}: {msg}" for line, msg in sorted(self.items)]
            raise ConfigError(f"{count_of(len(lines), 'problem')} in {self.what} "
                              f"{self.source}:",
                              lines)


def decode_utf8(data: bytes, source: str) -> str:
    """Return `data` as text.

    Raises:
        ConfigError: the bytes are not UTF-8, naming the line and byte offset of the first
            bad byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{source}:{line}: not UTF-8 text: byte 0x{data[exc.start]:02x} at "
                          f"byte offset {exc.start}; save the file as UTF-8") from None


def load_document(text: str, problems: Problems, keys: tuple[str, ...]) -> LineDict:
    """Return YAML `text` as a mapping with lines, adding each key written twice to `problems`
    (`keys`: the first few keys of such a file, named when the text is no mapping).

    Raises:
        ConfigError: the text is not YAML, or not a mapping (with the problems found so far).
    """
    try:
        doc, duplicates = load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = str(getattr(exc, "problem", None) or exc)
        hint = " (often a line indented unlike the lines around it)" if any(
            words in problem for words in ("expected <block end>", "mapping values are not "
                                           "allowed", "could not find expected ':'")) else ""
        problems.add(line, f"not valid YAML: {problem}{hint}")
        problems.raise_if_any()
        raise AssertionError("unreachable") from exc
    for line, key in duplicates:
        problems.add(line, f"key {key!r} appears twice")
    if not isinstance(doc, LineDict):
        problems.add(1, f"a {problems.what} is a mapping of keys ({', '.join(keys)}, ...)")
        problems.raise_if_any()
    assert isinstance(doc, LineDict)
    return doc
