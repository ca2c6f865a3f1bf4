"""Continuing a real OpenCode session through ``opencode serve`` in the sandbox."""

from __future__ import annotations

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox

from .conftest import TurnEvents, last_messages, only_task
from .test_codex_send import play

pytestmark = pytest.mark.real_agents


def test_send_through_opencode_serve_streams_and_lands_in_its_database(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-106, RW-119: the prompt goes to ``opencode serve`` with the chosen
    provider/model; the reply streams; OpenCode's own database holds it under the turn id the
    stream used (the user message's id)."""
    run = agent_sandbox.run_agent("opencode", "hello", "Say hello")
    assert run.returncode == 0, run.stderr
    task_id = str(only_task(sandbox_executor, "opencode")["localTaskId"])
    listed = sandbox_executor.handle("runtime.tasks.models", {"localTaskId": task_id})
    fake = [m for m in listed["models"] if m["id"] == "fake-model"]
    assert fake and fake[0]["modelType"] == "fake"
    with pytest.raises(HangarError) as refused:
        sandbox_executor.handle(
            "runtime.tasks.send",
            {
                "localTaskId": task_id,
                "text": "hi",
                "model": {"modelId": "fake-model", "modelType": "nope"},
            },
        )
    assert refused.value.code == "bad_request"
    play(agent_sandbox, {"text": "OpenCode carries on from its server."})
    accepted = sandbox_executor.handle(
        "runtime.tasks.send",
        {
            "localTaskId": task_id,
            "text": "Keep going",
            "model": {"modelId": "fake-model", "modelType": "fake"},
        },
    )
    subtask = accepted["subtaskId"]
    assert subtask.startswith("msg_")
    turn_events.wait_type("response.completed", subtask)
    assert turn_events.text(subtask) == "OpenCode carries on from its server."
    user, reply = last_messages(sandbox_executor, task_id)
    assert user["content"] == "Keep going" and user["turnId"] == subtask
    assert reply["content"] == "OpenCode carries on from its server."
    with pytest.raises(HangarError) as unsupported:
        sandbox_executor.handle("runtime.tasks.compact", {"localTaskId": task_id})
    assert unsupported.value.code == "not_supported"
