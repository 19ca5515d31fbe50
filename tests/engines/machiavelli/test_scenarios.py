"""Rules as data: every scenario in tests/scenarios/machiavelli/ (format: docs/machiavelli.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .scenario import run

FOLDER = Path(__file__).resolve().parents[2] / "scenarios" / "machiavelli"
FILES = sorted(p for p in FOLDER.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def test_the_folder_has_scenarios() -> None:
    assert len(FILES) >= 45


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    run(path)
