"""Copying a task to a new task on the same device (RW-297..300): the real Codex 0.171
app-server in the sandbox forks the thread through the chosen turn; Claude has no fork
hangar can drive, so its copy is refused as ``not_supported``."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox

from .conftest import TurnEvents, last_messages, only_task
from .test_codex_send import codex_task, play, send

pytestmark = pytest.mark.real_agents


def contents(executor: Executor, task_id: str) -> list[tuple[str, str]]:
    page = executor.handle(
        "runtime.tasks.transcript", {"localTaskId": task_id, "limit": 50, "refresh": True}
    )
    return [(m["role"], m["content"]) for m in page["messages"]]


def contents_turn(executor: Executor, task_id: str, position: int) -> str:
    """The turn id of the ``position``-th reply of the task."""
    page = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 50})
    replies = [m for m in page["messages"] if m["role"] == "assistant"]
    return str(replies[position]["turnId"])


def turn(executor: Executor, events: TurnEvents, task_id: str, text: str) -> str:
    subtask = str(send(executor, task_id, text)["subtaskId"])
    events.wait_type("response.completed", subtask)
    return subtask


def copy(executor: Executor, task_id: str, last_turn_id: str) -> dict[str, Any]:
    return executor.handle(
        "runtime.tasks.copy",
        {"localTaskId": task_id, "lastTurnId": last_turn_id, "newLocalTaskId": uuid.uuid4().hex},
    )


def test_a_codex_copy_ends_at_the_chosen_turn_while_the_source_runs_on(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-298, RW-299, RW-300: the copy made at the middle turn holds the history through that
    turn and nothing after it (a copy of that copy at its first turn: only that turn); made
    again while the source streams a later, slow turn, the copy ends at the chosen turn and
    the source's running turn finishes with its whole reply, in the source's own rollout."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    play(agent_sandbox, {"text": "Second answer."}, {"text": "Third answer."})
    middle = turn(sandbox_executor, turn_events, task_id, "Second question")
    turn(sandbox_executor, turn_events, task_id, "Third question")
    source_before = contents(sandbox_executor, task_id)

    copied = copy(sandbox_executor, task_id, middle)
    assert copied["sourceLocalTaskId"] == task_id and copied["lastTurnId"] == middle
    new_id = copied["localTaskId"]
    assert new_id != task_id
    copy_messages = contents(sandbox_executor, new_id)
    assert (
        copy_messages == source_before[: source_before.index(("assistant", "Second answer.")) + 1]
    )
    assert copy_messages[-2:] == [("user", "Second question"), ("assistant", "Second answer.")]
    assert contents(sandbox_executor, task_id) == source_before
    listed = {
        t["localTaskId"]: t for t in sandbox_executor.handle("runtime.tasks.list", {})["tasks"]
    }
    assert listed[new_id]["title"].endswith("(copy)")
    assert listed[new_id]["workspacePath"] == listed[task_id]["workspacePath"]
    # A copy of the copy (a fork of a fork) reads through both parents.
    again = copy(sandbox_executor, new_id, contents_turn(sandbox_executor, new_id, 0))
    assert contents(sandbox_executor, again["localTaskId"]) == copy_messages[:2]

    # Mid-turn: the source streams a slow fourth turn while the copy is made at the third.
    play(agent_sandbox, {"text": "A slow fourth answer that keeps streaming on.", "delay": 3})
    running = str(send(sandbox_executor, task_id, "Fourth question")["subtaskId"])
    turn_events.wait_type("response.output_text.delta", running)
    third = [
        m for m in last_messages(sandbox_executor, task_id, 6) if m["content"] == "Third answer."
    ]
    mid = copy(sandbox_executor, task_id, third[0]["turnId"])
    with pytest.raises(HangarError) as still_running:
        copy(sandbox_executor, task_id, running)
    assert still_running.value.code in ("bad_request", "not_found")
    done = turn_events.wait_type("response.completed", running)
    assert done["localTaskId"] == task_id
    assert turn_events.text(running) == "A slow fourth answer that keeps streaming on."
    assert contents(sandbox_executor, task_id)[-2:] == [
        ("user", "Fourth question"),
        ("assistant", "A slow fourth answer that keeps streaming on."),
    ]
    assert contents(sandbox_executor, mid["localTaskId"])[-2:] == [
        ("user", "Third question"),
        ("assistant", "Third answer."),
    ]


def test_a_claude_copy_is_not_supported(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor
) -> None:
    """A Claude task's copy is answered ``not_supported`` naming the agent and the operation,
    and no task is added."""
    run = agent_sandbox.run_agent("claude", "hello", "say hello")
    assert run.returncode == 0, run.stderr
    task_id = only_task(sandbox_executor, "claude")["localTaskId"]
    turn_id = last_messages(sandbox_executor, task_id)[-1]["turnId"]
    with pytest.raises(HangarError) as refused:
        copy(sandbox_executor, task_id, turn_id)
    assert refused.value.code == "not_supported" and refused.value.http_status == 501
    assert refused.value.details() == {"runtime": "claude", "operation": "fork"}
    assert len(sandbox_executor.handle("runtime.tasks.list", {})["tasks"]) == 1
