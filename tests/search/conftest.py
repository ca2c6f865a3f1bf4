"""An executor over a test's own agent homes (Codex and Claude under the test's HOME)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.agents.launch import NoLauncher
from hangar.executor.service import Executor


@pytest.fixture
def executor(isolated_home: Path) -> Iterator[Executor]:
    ex = Executor.open(launcher=NoLauncher())  # no codex CLI outside the sandbox
    yield ex
    ex.close()


@pytest.fixture
def claude_home(isolated_home: Path) -> Path:
    return isolated_home / ".claude"


@pytest.fixture
def codex_home(isolated_home: Path) -> Path:
    return isolated_home / ".codex"


def install_codex_fixture(codex_home: Path, fixture: Path) -> Path:
    """Copy a rollout where Codex keeps it (``sessions/YYYY/MM/DD/``)."""
    day = codex_home / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True, exist_ok=True)
    target = day / fixture.name
    shutil.copyfile(fixture, target)
    return target
