"""Copying a task to a new task on the same device (RW-297..300): the real Codex 0.171
app-server in the sandbox forks the thread through the chosen turn; the real Claude Code CLI
forks its session through the turn's last entry (``--resume-session-at``, ``--fork-session``)."""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox

from .conftest import TurnEvents, last_messages, only_task
from .test_claude_send import send as claude_send
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


def copy_while_streaming(
    box: AgentSandbox,
    executor: Executor,
    events: TurnEvents,
    task_id: str,
    sender: Callable[[Executor, str, str], dict[str, Any]],
) -> dict[str, Any]:
    """Copy at the third turn while a slow fourth streams: the running turn cannot be the
    copy's last, and it finishes in full on the source. Returns the copy."""
    play(box, {"text": "A slow fourth answer that keeps streaming on.", "delay": 3})
    running = str(sender(executor, task_id, "Fourth question")["subtaskId"])
    events.wait_type("response.output_text.delta", running)
    third = [m for m in last_messages(executor, task_id, 6) if m["content"] == "Third answer."]
    mid = copy(executor, task_id, third[0]["turnId"])
    with pytest.raises(HangarError) as still_running:
        copy(executor, task_id, running)
    assert still_running.value.code in ("bad_request", "not_found")
    done = events.wait_type("response.completed", running)
    assert done["localTaskId"] == task_id
    assert events.text(running) == "A slow fourth answer that keeps streaming on."
    return mid


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
    mid = copy_while_streaming(agent_sandbox, sandbox_executor, turn_events, task_id, send)
    assert contents(sandbox_executor, task_id)[-2:] == [
        ("user", "Fourth question"),
        ("assistant", "A slow fourth answer that keeps streaming on."),
    ]
    assert contents(sandbox_executor, mid["localTaskId"])[-2:] == [
        ("user", "Third question"),
        ("assistant", "Third answer."),
    ]


def replies(executor: Executor, task_id: str) -> list[dict[str, Any]]:
    """The task's replies as shown (content and blocks: tools, their output)."""
    page = executor.handle("runtime.tasks.transcript", {"localTaskId": task_id, "limit": 50})
    keep = ("content", "blocks", "status", "turnId")
    return [{k: m.get(k) for k in keep} for m in page["messages"] if m["role"] == "assistant"]


def claude_turn(executor: Executor, events: TurnEvents, task_id: str, text: str) -> str:
    subtask = str(claude_send(executor, task_id, text)["subtaskId"])
    events.wait_type("response.completed", subtask)
    return subtask


def claude_processes(agent_sandbox: AgentSandbox) -> list[int]:
    found = []
    for pid in agent_sandbox.sandbox.namespace_pids(include_helper=False):
        with contextlib.suppress(OSError):
            if b"claude" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


def wait_claude_exited(agent_sandbox: AgentSandbox, timeout: float = 30.0) -> None:
    """Until every Claude CLI in the sandbox has exited (a turn's CLI writes its session's
    last records after the reply, while it ends)."""
    deadline = time.monotonic() + timeout
    while claude_processes(agent_sandbox):
        assert time.monotonic() < deadline, "a claude CLI did not exit"
        time.sleep(0.05)


def model_turns(agent_sandbox: AgentSandbox) -> int:
    return len([r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"])


def test_a_claude_copy_is_forked_by_the_cli_through_the_chosen_turn(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-298, RW-300: Claude Code forks the session itself at copy time (no model
    turn): the copy made at the middle turn holds the history through that turn and nothing
    after it, under its own session id in a new file; it continues on its own; the source's
    file stays byte for byte what it was. Made while the source streams a later turn, the copy
    ends at the chosen turn and the source's running turn finishes with its whole reply."""
    run = agent_sandbox.run_agent("claude", "shell-roundtrip", "Write the marker")
    assert run.returncode == 0, run.stderr
    task_id = str(only_task(sandbox_executor, "claude")["localTaskId"])
    (source_file,) = [p for p in run.store_files if p.suffix == ".jsonl"]
    play(agent_sandbox, {"text": "Second answer."}, {"text": "Third answer."})
    middle = claude_turn(sandbox_executor, turn_events, task_id, "Second question")
    claude_turn(sandbox_executor, turn_events, task_id, "Third question")
    wait_claude_exited(agent_sandbox)
    source_before = contents(sandbox_executor, task_id)
    source_bytes = source_file.read_bytes()
    asked = model_turns(agent_sandbox)

    copied = copy(sandbox_executor, task_id, middle)
    assert model_turns(agent_sandbox) == asked  # the fork asked the model nothing
    assert copied["sourceLocalTaskId"] == task_id and copied["lastTurnId"] == middle
    new_id = copied["localTaskId"]
    copy_messages = contents(sandbox_executor, new_id)
    assert (
        copy_messages == source_before[: source_before.index(("assistant", "Second answer.")) + 1]
    )
    assert copy_messages[-2:] == [("user", "Second question"), ("assistant", "Second answer.")]
    assert source_file.read_bytes() == source_bytes
    listed = {
        t["localTaskId"]: t for t in sandbox_executor.handle("runtime.tasks.list", {})["tasks"]
    }
    assert listed[new_id]["title"].endswith("(copy)")
    assert listed[new_id]["workspacePath"] == listed[task_id]["workspacePath"]
    copy_session = listed[new_id]["runtimeHandle"]["sessionId"]
    assert copy_session != listed[task_id]["runtimeHandle"]["sessionId"]
    copy_file = source_file.parent / f"{copy_session}.jsonl"
    titles = [json.loads(line).get("customTitle") for line in copy_file.read_text().splitlines()]
    assert listed[new_id]["title"] in titles  # Claude's own name for the copy
    # A copy of the copy at its first turn (a tool call, its result and the final reply).
    first = contents_turn(sandbox_executor, new_id, 0)
    again = copy(sandbox_executor, new_id, first)["localTaskId"]
    assert contents(sandbox_executor, again) == copy_messages[:2]
    assert replies(sandbox_executor, again) == replies(sandbox_executor, task_id)[:1]
    assert "marker.txt" in json.dumps(replies(sandbox_executor, again)[0]["blocks"])

    # The copy continues as its own session: the model sees the history through the second
    # turn only, and the source's file is still untouched.
    play(agent_sandbox, {"text": "The copy goes its own way."})
    claude_turn(sandbox_executor, turn_events, new_id, "Copy question")
    assert contents(sandbox_executor, new_id) == [
        *copy_messages,
        ("user", "Copy question"),
        ("assistant", "The copy goes its own way."),
    ]
    sent = json.dumps(agent_sandbox.sandbox.requests()[-1]["body"]["messages"])
    assert "Second answer." in sent and "Third question" not in sent
    assert b"Copy question" in copy_file.read_bytes()
    assert source_file.read_bytes() == source_bytes
    assert contents(sandbox_executor, task_id) == source_before

    # Mid-turn: the source streams a slow fourth turn while the copy is made at the third.
    mid = copy_while_streaming(agent_sandbox, sandbox_executor, turn_events, task_id, claude_send)
    assert contents(sandbox_executor, task_id) == [
        *source_before,
        ("user", "Fourth question"),
        ("assistant", "A slow fourth answer that keeps streaming on."),
    ]
    assert source_file.read_bytes().startswith(source_bytes)
    assert contents(sandbox_executor, mid["localTaskId"]) == source_before


def test_a_claude_copy_to_another_device_is_not_supported(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor
) -> None:
    """Claude forks only on its own device: offering its session to another one is refused as
    ``not_supported`` (the CLI has no way to place a session's files elsewhere) before the
    source writes anything."""
    run = agent_sandbox.run_agent("claude", "hello", "say hello")
    assert run.returncode == 0, run.stderr
    task_id = only_task(sandbox_executor, "claude")["localTaskId"]
    turn_id = last_messages(sandbox_executor, task_id)[-1]["turnId"]
    offer = {"localTaskId": task_id, "lastTurnId": turn_id, "transferId": "transfer-1"}
    with pytest.raises(HangarError) as refused:
        sandbox_executor.handle("runtime.transfer.offer", {**offer, "token": "t" * 32})
    assert refused.value.code == "not_supported" and refused.value.http_status == 501
    assert refused.value.details() == {"runtime": "claude", "operation": "fork"}
    assert not (Path(os.environ["HANGAR_HOME"]) / "transfers" / "transfer-1").exists()
    assert len(sandbox_executor.handle("runtime.tasks.list", {})["tasks"]) == 1
