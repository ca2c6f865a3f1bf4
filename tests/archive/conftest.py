"""An executor over the test's own HANGAR_HOME; no codex CLI unless a test adds one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.agents.launch import NoLauncher
from hangar.executor.service import Executor


@pytest.fixture
def executor(isolated_home: Path) -> Iterator[Executor]:
    ex = Executor.open(launcher=NoLauncher())
    yield ex
    ex.close()
