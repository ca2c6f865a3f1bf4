"""Continuing real agent sessions: executors whose agents run in the test's sandbox.

``turn_events`` collects every event the executor streams (the same sink ``hangar serve``
wires to its SSE bus); ``wait_for`` blocks until a matching event arrives (with a deadline).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hangar.agents.registry import open_stores
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox

DEADLINE = 90.0


class TurnEvents:
    """A thread-safe event sink with waits."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self._cond = threading.Condition()

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        with self._cond:
            self.events.append((event, data))
            self._cond.notify_all()

    def turn(self, subtask_id: str | None = None) -> list[dict[str, Any]]:
        with self._cond:
            return [
                d
                for e, d in self.events
                if e == "runtime.turn" and (subtask_id is None or d.get("subtaskId") == subtask_id)
            ]

    def types(self, subtask_id: str | None = None) -> list[str]:
        return [d["type"] for d in self.turn(subtask_id)]

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], what: str, timeout: float = DEADLINE
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event, data in self.events:
                    if event == "runtime.turn" and predicate(data):
                        return data
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"timed out waiting for {what}: {self.types()}"
                self._cond.wait(remaining)

    def wait_type(self, kind: str, subtask_id: str | None = None, **match: Any) -> dict[str, Any]:
        def ok(d: dict[str, Any]) -> bool:
            return (
                d.get("type") == kind
                and (subtask_id is None or d.get("subtaskId") == subtask_id)
                and all(d.get(k) == v for k, v in match.items())
            )

        return self.wait_for(ok, f"{kind} {subtask_id or ''} {match or ''}")

    def text(self, subtask_id: str) -> str:
        return "".join(
            d["delta"] for d in self.turn(subtask_id) if d["type"] == "response.output_text.delta"
        )

    def dump(self) -> str:
        return json.dumps([d for _, d in self.events])


@pytest.fixture
def turn_events() -> TurnEvents:
    return TurnEvents()


def sandbox_stores(agent_sandbox: AgentSandbox) -> dict[str, Any]:
    """The stores of the sandbox's agent homes (as the executor of that user would see)."""
    home = agent_sandbox.host(agent_sandbox.homes.home)
    env = {
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    return dict(open_stores(env))


def open_sandbox_executor(agent_sandbox: AgentSandbox, turn_events: TurnEvents) -> Executor:
    """An executor over the sandbox's agent homes whose controls start the pinned CLIs in the
    sandbox, streaming to ``turn_events`` (settings from this test's environment)."""
    stores = sandbox_stores(agent_sandbox)
    wanted = {k: stores[k] for k in ("codex", "claude", "opencode")}
    return Executor.open(stores=wanted, launcher=agent_sandbox.launcher(), events=turn_events)


@pytest.fixture
def sandbox_executor(
    agent_sandbox: AgentSandbox, isolated_home: Path, turn_events: TurnEvents
) -> Iterator[Executor]:
    ex = open_sandbox_executor(agent_sandbox, turn_events)
    yield ex
    ex.close()


def only_task(executor: Executor, runtime: str) -> dict[str, Any]:
    tasks = [
        t for t in executor.handle("runtime.tasks.list", {})["tasks"] if t["runtime"] == runtime
    ]
    assert len(tasks) == 1, tasks
    return tasks[0]


def last_messages(executor: Executor, local_task_id: str, count: int = 2) -> list[dict[str, Any]]:
    page = executor.handle(
        "runtime.tasks.transcript", {"localTaskId": local_task_id, "limit": 50, "refresh": True}
    )
    return list(page["messages"][-count:])
