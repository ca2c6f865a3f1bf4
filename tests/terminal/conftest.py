"""Fixtures for the terminal engine's tests: a real hub for the card's lists, and a sandbox
with a hub, the agent CLIs and tmux for the real-terminal tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.hub_client import HubClient
from hangar.testing.agent_clis import agent_clis_dir, missing_binaries
from hangar.testing.pytest_plugin import REQUIRE_ENV
from hangar.testing.sandbox import namespace_support
from hub.server_process import running_hub  # tests/hub, a sibling package
from localrun.sandbox_hub import SandboxHub  # tests/localrun, a sibling package

from .tmux_term import tmux_available


@pytest.fixture
def hub(hangar_home: Path) -> Iterator[HubClient]:
    """A client of a real hub process with three projects and four labels."""
    with running_hub() as running:
        client = HubClient(running.url, running.token(hangar_home), timeout=10)
        for name in ("Web app", "Worker", "Docs"):
            client.post("/api/projects", {"name": name})
        for name in ("bug", "backend", "ui", "docs"):
            client.post("/api/labels", {"name": name})
        yield client
        client.close()


@pytest.fixture
def sandbox_hub(tmp_path: Path) -> Iterator[SandboxHub]:
    """A hub and the agent CLIs in a loopback-only sandbox, plus tmux (skips where any of
    them is missing; fails instead under ``HANGAR_REQUIRE_REAL_AGENTS=1``)."""
    reason = namespace_support()
    missing = missing_binaries()
    if reason is None and missing:
        reason = f"agent CLIs {missing} not installed in {agent_clis_dir()} (make agents)"
    if reason is None and not tmux_available():
        reason = "tmux is not installed (make tmux)"
    if reason is not None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the sandbox cannot run: {reason}", pytrace=False)
        pytest.skip(reason)
    hub = SandboxHub(tmp_path)
    with hub:
        yield hub
    assert hub.sandbox.namespace_pids() == [], "processes left in the sandbox"
