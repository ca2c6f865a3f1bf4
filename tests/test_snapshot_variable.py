"""Snapshot tests are regenerated with one environment variable, HANGAR_UPDATE_SNAPSHOTS."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
VARIABLE = re.compile(r"\b[A-Z_]*UPDATE_SNAPSHOTS\b")


def test_one_variable_updates_every_snapshot() -> None:
    """Every test module that updates snapshots reads the same variable (there were two)."""
    names = {
        name
        for path in TESTS.rglob("*.py")
        if path != Path(__file__).resolve()
        for name in VARIABLE.findall(path.read_text(encoding="utf-8"))
    }
    assert names == {"HANGAR_UPDATE_SNAPSHOTS"}
