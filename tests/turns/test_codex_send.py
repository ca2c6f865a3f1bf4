"""Continuing a real Codex thread through the executor's resident ``codex app-server``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .conftest import TurnEvents, last_messages, only_task

pytestmark = pytest.mark.real_agents


def play(agent_sandbox: AgentSandbox, *turns: dict[str, Any]) -> None:
    agent_sandbox.sandbox.load(scenario_from_dict({"name": "continue", "turns": list(turns)}))


def codex_task(agent_sandbox: AgentSandbox, executor: Executor) -> str:
    run = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert run.returncode == 0, run.stderr
    agent_sandbox.offer_codex_model()
    return str(only_task(executor, "codex")["localTaskId"])


def send(executor: Executor, task_id: str, text: str, **extra: Any) -> dict[str, Any]:
    payload = {"localTaskId": task_id, "text": text, "model": {"modelId": "fake-model"}, **extra}
    return executor.handle("runtime.tasks.send", payload)


def test_send_streams_the_reply_and_codex_records_it(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-102..RW-108, RW-238, RW-240: thread/resume + turn/start on the resident app-server;
    the reply streams with task and turn identity and no path; Codex's own rollout holds it,
    under the same turn id the stream used."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    play(agent_sandbox, {"text": "Continued reply from the fake model, in several words."})
    accepted = send(sandbox_executor, task_id, "Please continue")
    subtask = accepted["subtaskId"]
    assert accepted["localTaskId"] == task_id and accepted["taskId"] == task_id and subtask
    done = turn_events.wait_type("response.completed", subtask)
    assert done["blockCount"] >= 1
    types = turn_events.types(subtask)
    assert types[0] == "response.created" and types[-1] == "response.completed"
    assert turn_events.text(subtask) == "Continued reply from the fake model, in several words."
    workspace = only_task(sandbox_executor, "codex")["workspacePath"]
    for event in turn_events.turn(subtask):
        assert event["localTaskId"] == task_id and event["deviceId"]
        assert workspace not in json.dumps(event)  # RW-108
    user, reply = last_messages(sandbox_executor, task_id)
    assert user["role"] == "user" and user["content"] == "Please continue"
    assert reply["content"] == "Continued reply from the fake model, in several words."
    assert reply["turnId"] == subtask  # the stream's turn is the transcript's (RW-240)
    model_requests = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"]
    assert model_requests[-1]["body"]["model"] == "fake-model"


def test_a_send_without_a_model_or_with_one_codex_lacks_is_refused(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor
) -> None:
    """RW-119..RW-121: no model → bad_request (no default, no earlier turn's model); a model
    the agent does not list → bad_request naming what it offers; nothing reaches Codex."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    seen = len(agent_sandbox.sandbox.requests())
    for model in (None, {"modelId": ""}, {"modelId": "gpt-made-up"}):
        payload: dict[str, Any] = {"localTaskId": task_id, "text": "hi"}
        if model is not None:
            payload["model"] = model
        with pytest.raises(HangarError) as refused:
            sandbox_executor.handle("runtime.tasks.send", payload)
        assert refused.value.code == "bad_request"
    assert "fake-model" in str(refused.value)
    assert len(agent_sandbox.sandbox.requests()) == seen
    listed = sandbox_executor.handle("runtime.tasks.models", {"localTaskId": task_id})
    assert [m["id"] for m in listed["models"]] == ["fake-model"]
    assert {"send", "guidance", "cancel", "compact"} <= set(listed["operations"])


def test_a_second_send_while_replying_is_busy_and_queued_sends_keep_their_order(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-124: never two sends at once: the second gets ``busy``; sent after the first reply
    ends (as the UI's queue does), both land in Codex's transcript in order."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    play(
        agent_sandbox,
        {"text": "First answer arrives slowly and completely.", "delay": 2},
        {"text": "Second answer."},
    )
    first = send(sandbox_executor, task_id, "First queued message")["subtaskId"]
    with pytest.raises(HangarError) as busy:
        send(sandbox_executor, task_id, "Second queued message")
    assert busy.value.code == "busy" and busy.value.http_status == 409
    turn_events.wait_type("response.completed", first)
    second = send(sandbox_executor, task_id, "Second queued message")["subtaskId"]
    turn_events.wait_type("response.completed", second)
    messages = last_messages(sandbox_executor, task_id, 4)
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "First queued message"),
        ("assistant", "First answer arrives slowly and completely."),
        ("user", "Second queued message"),
        ("assistant", "Second answer."),
    ]
