"""An executor over a test's own agent homes (Codex and Claude under the test's HOME)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.executor.service import Executor
from hangar.executor.task_services import services_for
from hangar.state import HangarState, open_state


@pytest.fixture
def state(isolated_home: Path) -> Iterator[HangarState]:
    opened = open_state()
    yield opened
    opened.close()


@pytest.fixture
def executor(state: HangarState) -> Iterator[Executor]:
    ex = Executor.from_state(state)
    services_for(ex).codex_factory = None  # no codex CLI outside the sandbox
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
