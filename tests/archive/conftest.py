"""An executor over the test's own HANGAR_HOME; no codex CLI unless a test adds one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.executor.service import Executor
from hangar.executor.task_services import services_for
from hangar.state import open_state


@pytest.fixture
def executor(isolated_home: Path) -> Iterator[Executor]:
    state = open_state()
    ex = Executor.from_state(state)
    services_for(ex).codex_factory = None
    yield ex
    ex.close()
    state.close()
