"""Architecture tests: `arena.core` and `arena.games` import only the standard library and
`arena.core` (games may also import their own package); and every module of arena imports
only its own ring and the rings inside it (`RINGS`), the Python client only the wire."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "arena"
INNER = sorted([*ROOT.joinpath("core").rglob("*.py"), *ROOT.joinpath("games").rglob("*.py")])


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def allowed(module: str, path: Path) -> bool:
    top = module.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__":
        return True
    if module == "arena.core" or module.startswith("arena.core."):
        return True
    games = ROOT / "games"
    if path.is_relative_to(games):
        return module == "arena.games" or module.startswith("arena.games.")
    return False


@pytest.mark.parametrize("path", INNER, ids=[str(p.relative_to(ROOT)) for p in INNER])
def test_inner_rings_import_only_stdlib_and_core(path: Path) -> None:
    bad = [m for m in imported_modules(path) if not allowed(m, path)]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    fake = ROOT / "core" / "fake.py"
    source = tmp_path / "fake.py"
    source.write_text("import zmq\nfrom arena.referee import x\nimport json\n")
    bad = [m for m in imported_modules(source) if not allowed(m, fake)]
    assert bad == ["zmq", "arena.referee"]


RINGS = ("core", "games", "protocol", "referee", "tournament", "ladder", "report", "cli")
"""arena's packages from the innermost out (../shared/DESIGN.md, "Rings"): each may import
its own ring and those before it, never one after it."""
SIDE = {
    "client": "protocol",  # what a Python bot imports: the wire, never the referee's side
    "_msgspec": "core", "_quiet_import": "core",  # the client's seams: nothing of arena's
    "_zmtp": "core",
    "errors": "core",
    "checkbot": "referee",
    "entry": "cli", "__main__": "cli",
}
"""Modules and packages outside the rings, each with the outermost ring it may import."""


def ring_of(path: Path) -> int:
    """The ring a file of arena belongs to (a package, or a side module's bound)."""
    top = path.relative_to(ROOT).parts[0].removesuffix(".py")
    if top == "__init__":
        return len(RINGS) - 1
    return RINGS.index(SIDE.get(top, top))


def outward(module: str, ring: int) -> bool:
    """Whether `module` is an arena package (or side module) outside `ring`."""
    parts = module.split(".")
    if parts[0] != "arena" or len(parts) == 1:
        return False  # not arena's, or `import arena` (its version, its path)
    name = parts[1]
    bound = SIDE.get(name, name)
    return bound in RINGS and RINGS.index(bound) > ring


ALL = sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", ALL, ids=[str(p.relative_to(ROOT)) for p in ALL])
def test_no_module_imports_a_ring_outside_its_own(path: Path) -> None:
    ring = ring_of(path)
    bad = [m for m in imported_modules(path) if outward(m, ring)]
    assert not bad, f"{path.relative_to(ROOT)} (ring {RINGS[ring]}) imports {bad}"


def test_every_part_of_arena_has_a_ring() -> None:
    tops = {p.relative_to(ROOT).parts[0].removesuffix(".py") for p in ALL}
    assert tops - {"__init__"} <= set(RINGS) | set(SIDE)


def test_the_ring_check_catches_an_outward_import() -> None:
    referee = RINGS.index("referee")
    assert outward("arena.tournament.runner", referee)
    assert outward("arena.cli", ring_of(ROOT / "client.py"))
    assert outward("arena.referee.process", ring_of(ROOT / "client.py"))
    assert not outward("arena.protocol.codec", referee)
    assert not outward("arena", RINGS.index("core"))
    assert not outward("zmq", RINGS.index("core"))
