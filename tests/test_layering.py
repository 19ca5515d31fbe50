"""Architecture test: `arena.core` and `arena.games` import only the standard library and
`arena.core` (games may also import their own package)."""

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
