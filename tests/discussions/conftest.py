"""Fixtures for discussion tests: the real hub app in process (API tests), a real hub
process (CLI tests) and the sandbox with a hub, the agent CLIs and tmux (real-terminal tests)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar
from hangar.testing.agent_clis import agent_clis_dir, missing_binaries
from hangar.testing.pytest_plugin import REQUIRE_ENV
from hangar.testing.sandbox import namespace_support
from localrun.sandbox_hub import SandboxHub  # tests/localrun, a sibling package
from terminal.tmux_term import tmux_available  # tests/terminal, a sibling package

TOKEN = "test-token-0123456789abcdef0123456789"


@pytest.fixture
def state(hangar_home: object) -> Iterator[LocalHangar]:
    opened = LocalHangar.open()
    yield opened
    opened.close()


@pytest.fixture
def client(state: LocalHangar) -> Iterator[TestClient]:
    app = state.create_app(TOKEN)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(
        app, base_url="http://127.0.0.1", headers=headers, raise_server_exceptions=False
    ) as test_client:
        yield test_client


def _sandbox_reason(need_tmux: bool) -> str | None:
    reason = namespace_support()
    missing = missing_binaries()
    if reason is None and missing:
        reason = f"agent CLIs {missing} not installed in {agent_clis_dir()} (make agents)"
    if reason is None and need_tmux and not tmux_available():
        reason = "tmux is not installed (make tmux)"
    return reason


def _sandbox(tmp_path: Path, need_tmux: bool) -> Iterator[SandboxHub]:
    reason = _sandbox_reason(need_tmux)
    if reason is not None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the sandbox cannot run: {reason}", pytrace=False)
        pytest.skip(reason)
    hub = SandboxHub(tmp_path)
    with hub:
        yield hub
    assert hub.sandbox.namespace_pids() == [], "processes left in the sandbox"


@pytest.fixture
def sandbox_hub(tmp_path: Path) -> Iterator[SandboxHub]:
    """A hub and the agent CLIs in a loopback-only sandbox, plus tmux."""
    yield from _sandbox(tmp_path, need_tmux=True)


@pytest.fixture
def pty_hub(tmp_path: Path) -> Iterator[SandboxHub]:
    """Like :func:`sandbox_hub` for tests that drive a plain PTY (no tmux needed)."""
    yield from _sandbox(tmp_path, need_tmux=False)
