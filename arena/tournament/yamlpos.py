"""YAML loading that remembers the line of every mapping key and list item.

PyYAML's composer gives every node a start mark; this loader keeps those marks on the
containers it builds, so that config validation can report `file:line: problem`.

Aliases are allowed, but the document they expand to is bounded (`MAX_NODES`): an alias
bomb ("billion laughs") is refused while it is composed, naming the alias that crosses the
bound, instead of being expanded by whoever walks the data later. An alias inside its own
anchor (a recursive document) is refused too.
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


MAX_NODES = 100_000
"""Most values (scalars, lists, mappings) a document may hold once its aliases are expanded."""


class _Loader(yaml.SafeLoader):
    """A safe loader whose mappings and sequences carry their lines, and whose documents,
    aliases expanded, hold at most `MAX_NODES` values."""

    duplicates: list[tuple[int, str]]
    expanded: int
    sizes: dict[int, int]
    """The expanded size of each finished node, by id: what an alias to it adds."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            target = self.anchors.get(event.anchor)
            if target is not None:
                size = self.sizes.get(id(target))
                if size is None:
                    raise yaml.composer.ComposerError(
                        None, None, f"alias *{event.anchor} is used inside its own anchor "
                        "(a recursive document)", event.start_mark)
                self._count(size, event.start_mark, f"alias *{event.anchor}")
            return super().compose_node(parent, index)
        before = self.expanded
        self._count(1, self.peek_event().start_mark, "this value")  # type: ignore[no-untyped-call]
        node = super().compose_node(parent, index)
        self.sizes[id(node)] = self.expanded - before
        return node

    def _count(self, size: int, mark: yaml.Mark, what: str) -> None:
        self.expanded += size
        if self.expanded > MAX_NODES:
            raise yaml.composer.ComposerError(
                None, None, f"{what} makes the document larger than {MAX_NODES:,} values once "
                "aliases are expanded (an alias bomb?)", mark)


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
    loader.duplicates, loader.expanded, loader.sizes = [], 0, {}
    try:
        return loader.get_single_data(), loader.duplicates
    except RecursionError:
        # the composer and constructors recurse once per nesting level
        raise yaml.YAMLError("nested too deeply") from None
    finally:
        loader.dispose()
