"""pytest fixtures over hangar's testing kit (register with ``pytest_plugins``).

- ``sandbox`` — a started loopback-only :class:`~hangar.testing.sandbox.Sandbox`.
- ``agent_sandbox`` — a started :class:`~hangar.testing.agent_runs.AgentSandbox` (the real
  CLIs must be installed: ``make agents``).
- ``run_agent`` — ``agent_sandbox.run_agent``: ``run_agent(cli, scenario, prompt, *, cwd=None,
  resume=False, timeout=180.0) -> AgentRun``; calls in one test share one sandbox.
- ``fake_model`` — a :class:`~hangar.testing.fake_model.FakeModelServer` on the test
  process's own loopback (for tests of the server itself; no namespace needed).

Where namespaces or the CLIs are unavailable the sandbox fixtures skip with the reason, unless
``HANGAR_REQUIRE_REAL_AGENTS=1``, where they fail. On teardown each sandbox is closed and the
fixture asserts that no process is left in its network namespace.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hangar.testing.agent_clis import agent_clis_dir, missing_binaries
from hangar.testing.agent_runs import AgentRun, AgentSandbox
from hangar.testing.fake_model import FakeModelServer
from hangar.testing.sandbox import Sandbox, namespace_support

REQUIRE_ENV = "HANGAR_REQUIRE_REAL_AGENTS"


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but the sandbox cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def _require_namespaces() -> None:
    reason = namespace_support()
    if reason is not None:
        _unavailable(f"no loopback-only sandbox here: {reason}")


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    _require_namespaces()
    box = Sandbox(tmp_path / "sandbox")
    box.start()
    try:
        yield box
    finally:
        box.close()
    assert box.namespace_pids() == [], "processes left in the sandbox"


@pytest.fixture
def agent_sandbox(tmp_path: Path) -> Iterator[AgentSandbox]:
    _require_namespaces()
    missing = missing_binaries()
    if missing:
        _unavailable(f"agent CLIs {missing} not installed in {agent_clis_dir()} (make agents)")
    box = AgentSandbox(tmp_path / "sandbox")
    box.start()
    try:
        yield box
    finally:
        box.close()
    assert box.sandbox.namespace_pids() == [], "processes left in the sandbox"


@pytest.fixture
def run_agent(agent_sandbox: AgentSandbox) -> Callable[..., AgentRun]:
    return agent_sandbox.run_agent


@pytest.fixture
def fake_model(tmp_path: Path) -> Iterator[FakeModelServer]:
    server = FakeModelServer(tmp_path / "requests.jsonl")
    server.start()
    try:
        yield server
    finally:
        server.close()
