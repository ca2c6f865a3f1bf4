"""Fixtures for adoption tests: a local hangar whose executor reads the agent sandbox's home."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar
from hangar.testing.agent_runs import AgentSandbox

TOKEN = "adoption-test-token-0123456789abcdef"


def sandbox_environ(agent_sandbox: AgentSandbox) -> dict[str, str]:
    """This test's environment with ``HOME`` (so every agent home) in the sandbox's home,
    where the real CLIs wrote their sessions."""
    home = agent_sandbox.host(agent_sandbox.homes.home)
    env = dict(os.environ)
    env["HOME"] = str(home)
    for name, folder in (
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        env[name] = str(home / folder)
    return env


@pytest.fixture
def hangar_of_sandbox(agent_sandbox: AgentSandbox, hangar_home: Path) -> Iterator[LocalHangar]:
    opened = LocalHangar.open(sandbox_environ(agent_sandbox))
    yield opened
    opened.close()


@pytest.fixture
def api(hangar_of_sandbox: LocalHangar) -> Iterator[TestClient]:
    app = hangar_of_sandbox.create_app(TOKEN)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(
        app, base_url="http://127.0.0.1", headers=headers, raise_server_exceptions=False
    ) as client:
        yield client
