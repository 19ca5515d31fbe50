"""YAML loading that remembers the line of every mapping key and list item.

PyYAML's composer gives every node a start mark; this loader keeps those marks on the
containers it builds, so that config validation can report `file:line: problem`.
"""

from __future__ import annotations

from typing import Any

import yaml


class LineDict(dict[str, Any]):
    """A mapping that knows its own line and the line of each key (1-based)."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        """Return the line of `key`, or of the mapping itself when the key is absent."""
        return self.key_lines.get(key, self.line)


class LineList(list[Any]):
    """A list that knows its own line and the line of each item (1-based)."""

    line: int = 0
    item_lines: list[int]


class _Loader(yaml.SafeLoader):
    """A safe loader whose mappings and sequences carry their lines."""

    duplicates: list[tuple[int, str]]


def _mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        key = key if isinstance(key, str) else str(key)
        line = key_node.start_mark.line + 1
        if key in result:
            loader.duplicates.append((line, key))
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = line
    return result


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def load(text: str) -> tuple[Any, list[tuple[int, str]]]:
    """Parse one YAML document; return it and the duplicate keys found as (line, key).

    Raises:
        yaml.YAMLError: the text is not YAML (the error carries its own mark).
    """
    loader = _Loader(text)
    loader.duplicates = []
    try:
        return loader.get_single_data(), loader.duplicates
    finally:
        loader.dispose()
