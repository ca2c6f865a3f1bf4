"""Continuing a real Claude Code session: ``--resume`` over stream-json, in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentRun, AgentSandbox

from .conftest import TurnEvents, last_messages, only_task
from .test_codex_send import play

pytestmark = pytest.mark.real_agents


def claude_task(agent_sandbox: AgentSandbox, executor: Executor) -> tuple[str, AgentRun]:
    run = agent_sandbox.run_agent("claude", "hello", "Say hello")
    assert run.returncode == 0, run.stderr
    return str(only_task(executor, "claude")["localTaskId"]), run


def send(executor: Executor, task_id: str, text: str, **extra: Any) -> dict[str, Any]:
    payload = {"localTaskId": task_id, "text": text, "model": {"modelId": "sonnet"}, **extra}
    return executor.handle("runtime.tasks.send", payload)


def transcript_lines(run: AgentRun) -> list[dict[str, Any]]:
    (path,) = [p for p in run.store_files if p.suffix == ".jsonl"]
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def test_send_resumes_the_session_and_the_reply_is_in_claude_own_file(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-103, RW-106, RW-119: the session continues by its sessionId with the chosen model;
    the reply streams, and Claude's own JSONL holds the message under the turn id the stream
    used (the user line's uuid)."""
    task_id, run = claude_task(agent_sandbox, sandbox_executor)
    listed = sandbox_executor.handle("runtime.tasks.models", {"localTaskId": task_id})
    assert "sonnet" in [m["id"] for m in listed["models"]]
    assert "guidance" not in listed["operations"]
    play(agent_sandbox, {"text": "Claude continues, streamed in pieces."})
    subtask = send(sandbox_executor, task_id, "Continue please")["subtaskId"]
    turn_events.wait_type("response.completed", subtask)
    assert turn_events.text(subtask) == "Claude continues, streamed in pieces."
    lines = transcript_lines(run)
    users = [line for line in lines if line.get("type") == "user" and line.get("uuid") == subtask]
    assert users and users[0]["message"]["content"] == "Continue please"
    assert any(
        line.get("type") == "assistant"
        and "Claude continues" in json.dumps(line["message"]["content"])
        for line in lines
    )
    user, reply = last_messages(sandbox_executor, task_id)
    assert user["content"] == "Continue please" and reply["turnId"] == subtask
    assert reply["content"] == "Claude continues, streamed in pieces."
    model_turns = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"]
    assert "sonnet" in model_turns[-1]["body"]["model"]


def test_claude_guidance_is_not_supported_and_says_so(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor
) -> None:
    task_id, _ = claude_task(agent_sandbox, sandbox_executor)
    with pytest.raises(HangarError) as refused:
        sandbox_executor.handle(
            "runtime.tasks.guidance", {"localTaskId": task_id, "text": "x", "clientGuidanceId": "g"}
        )
    assert refused.value.code == "not_supported"
    assert "claude" in str(refused.value) and "guidance" in str(refused.value)


def test_claude_queue_cancel_and_permission_callback(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-124: a second send while one runs is busy. Cancel interrupts the running turn; the
    permission callback: Claude asks before a command; denied, the command never runs."""
    task_id, run = claude_task(agent_sandbox, sandbox_executor)
    play(agent_sandbox, {"shell": "echo denied > denied.txt"}, {"text": "I could not run it."})
    asked_turn = send(sandbox_executor, task_id, "Write the marker")["subtaskId"]
    approval = turn_events.wait_type("approval.requested", asked_turn)["approval"]
    assert approval["kind"] == "tool" and "echo denied" in approval["detail"]
    with pytest.raises(HangarError) as busy:
        send(sandbox_executor, task_id, "Another one")
    assert busy.value.code == "busy"
    sandbox_executor.handle(
        "runtime.tasks.approval.answer",
        {"localTaskId": task_id, "approvalId": approval["approvalId"], "decision": "deny"},
    )
    turn_events.wait_type("response.completed", asked_turn)
    assert not (run.cwd / "denied.txt").exists()
    tools = [d for d in turn_events.turn(asked_turn) if d["type"] == "response.tool"]
    assert tools[-1]["status"] == "failed"

    play(agent_sandbox, {"text": "A long answer that never gets to finish.", "delay": 30})
    long_turn = send(sandbox_executor, task_id, "Tell me everything")["subtaskId"]
    turn_events.wait_type("response.output_text.delta", long_turn)
    cancelled = sandbox_executor.handle("runtime.tasks.cancel", {"localTaskId": task_id})
    assert cancelled["accepted"] is True
    turn_events.wait_type("response.incomplete", long_turn)
    nothing = sandbox_executor.handle("runtime.tasks.cancel", {"localTaskId": task_id})
    assert nothing["accepted"] is False


def test_claude_compact_is_its_own_command_never_a_user_message(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-147, RW-148: Claude compacts with its own command; the model is asked for a summary,
    never sent ``/compact`` as a message; the transcript records a compact boundary."""
    task_id, run = claude_task(agent_sandbox, sandbox_executor)
    play(agent_sandbox, {"text": "Summary of the session so far."})
    accepted = sandbox_executor.handle("runtime.tasks.compact", {"localTaskId": task_id})
    subtask = accepted["subtaskId"]
    assert subtask == f"{task_id}-context-compact"
    turn_events.wait_type("response.completed", subtask)
    assert [d["status"] for d in turn_events.turn(subtask) if d["type"] == "response.compaction"][
        -1
    ] == "done"
    lines = transcript_lines(run)
    assert any(line.get("subtype") == "compact_boundary" for line in lines)
    for request in agent_sandbox.sandbox.requests():
        for message in (request.get("body") or {}).get("messages") or []:
            assert message.get("content") != "/compact"
