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
    """RW-103..RW-106, RW-108, RW-238, RW-240: thread/resume + turn/start on the resident
    app-server; the reply streams with task and turn identity and no path; Codex's own rollout
    holds it, under the same turn id the stream used."""
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
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-120, RW-121: after a send with a model, a send without one is still bad_request (the
    earlier turn's model is not reused, no default); a model the agent does not list →
    bad_request naming what it offers; nothing reaches Codex."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    play(agent_sandbox, {"text": "First reply."})
    first = send(sandbox_executor, task_id, "With a model")["subtaskId"]
    turn_events.wait_type("response.completed", first)
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


def test_guidance_mid_turn_reaches_the_running_turn(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-132, RW-133: guidance goes to the running turn through ``turn/steer`` (accepted, a
    guidance.accepted event for the UI), Codex sends it to the model in the same turn; with no
    turn running the answer is ``no_active_turn``."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    idle = sandbox_executor.handle(
        "runtime.tasks.guidance",
        {"localTaskId": task_id, "text": "too early", "clientGuidanceId": "g-0"},
    )
    assert idle["outcome"] == "no_active_turn"
    play(
        agent_sandbox,
        {"text": "Working on the first part of it now.", "delay": 3},
        {"text": "Adjusted to your guidance."},
    )
    subtask = send(sandbox_executor, task_id, "Start the work")["subtaskId"]
    turn_events.wait_type("response.output_text.delta", subtask)
    steered = sandbox_executor.handle(
        "runtime.tasks.guidance",
        {"localTaskId": task_id, "text": "Use tabs, not spaces", "clientGuidanceId": "g-1"},
    )
    assert steered["outcome"] == "accepted"
    accepted = turn_events.wait_type("guidance.accepted", subtask)
    assert accepted["clientGuidanceId"] == "g-1" and accepted["text"] == "Use tabs, not spaces"
    turn_events.wait_type("response.completed", subtask)
    assert turn_events.text(subtask).endswith("Adjusted to your guidance.")
    model_turns = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"]
    assert "Use tabs, not spaces" in json.dumps(model_turns[-1]["body"]["input"])
    messages = last_messages(sandbox_executor, task_id, 6)
    texts = [m["content"] for m in messages if m["role"] == "user"]
    assert texts[-2:] == ["Start the work", "Use tabs, not spaces"]


def test_cancel_interrupts_a_turn_this_executor_runs_and_only_that(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-128: cancel by localTaskId → ``turn/interrupt`` → the turn ends
    ``response.incomplete``; with nothing running here → ``accepted: false``."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    nothing = sandbox_executor.handle("runtime.tasks.cancel", {"localTaskId": task_id})
    assert nothing == {"localTaskId": task_id, "accepted": False}
    play(agent_sandbox, {"text": "This reply takes a long time to finish.", "delay": 30})
    subtask = send(sandbox_executor, task_id, "Take your time")["subtaskId"]
    turn_events.wait_type("response.output_text.delta", subtask)
    result = sandbox_executor.handle("runtime.tasks.cancel", {"localTaskId": task_id})
    assert result == {"localTaskId": task_id, "accepted": True}
    ended = turn_events.wait_type("response.incomplete", subtask)
    assert ended["reason"] == "interrupted"
    assert "response.completed" not in turn_events.types(subtask)
    assert sandbox_executor.handle("runtime.tasks.activity", {})["turns"] == []


def test_compact_is_codex_own_compaction_as_its_own_subtask(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-144, RW-147, RW-148: thread/compact/start (after thread/resume); subtask
    ``<localTaskId>-context-compact``; a compaction block, never a ``/compact`` message."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    play(agent_sandbox, {"text": "Summary: the user said hello."})
    accepted = sandbox_executor.handle("runtime.tasks.compact", {"localTaskId": task_id})
    subtask = f"{task_id}-context-compact"
    assert accepted["subtaskId"] == subtask and accepted["kind"] == "compaction"
    turn_events.wait_type("response.completed", subtask)
    statuses = [
        d["status"] for d in turn_events.turn(subtask) if d["type"] == "response.compaction"
    ]
    assert statuses[-1] == "done"
    assert "response.output_text.delta" not in turn_events.types(subtask)
    bodies = json.dumps([r["body"] for r in agent_sandbox.sandbox.requests() if r.get("body")])
    assert '"/compact"' not in bodies  # RW-147
    rollout = next(
        (agent_sandbox.host(agent_sandbox.homes.home) / ".codex").rglob("rollout-*.jsonl")
    )
    assert any(
        json.loads(line).get("type") == "compacted" for line in rollout.read_text().splitlines()
    )
    messages = last_messages(sandbox_executor, task_id, 3)
    blocks = [b for m in messages for b in m.get("blocks") or []]
    assert any(b["type"] == "compaction" for b in blocks)


def test_goal_get_reads_codex_goal_without_touching_the_task(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor
) -> None:
    """RW-033: goal.get is a read: the task's updatedAt does not move."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    before = only_task(sandbox_executor, "codex")["updatedAt"]
    assert sandbox_executor.handle("runtime.tasks.goal.get", {"localTaskId": task_id}) == {
        "localTaskId": task_id,
        "goal": None,
    }
    assert only_task(sandbox_executor, "codex")["updatedAt"] == before
