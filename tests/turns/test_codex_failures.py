"""A Codex turn that never starts, or whose app-server dies: clear failures, then recovery."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from hangar.agents.codex.control import CodexControl
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox

from .conftest import TurnEvents, last_messages, open_sandbox_executor
from .test_codex_send import codex_task, play, send

pytestmark = pytest.mark.real_agents


def codex_control(executor: Executor) -> CodexControl:
    control = executor.control("codex")
    assert isinstance(control, CodexControl)
    return control


def test_the_startup_watchdog_fails_a_stuck_turn_and_a_retry_resends_its_input(
    agent_sandbox: AgentSandbox,
    isolated_home: Path,
    turn_events: TurnEvents,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RW-109..RW-111, RW-113, RW-114, RW-116: a model that never answers (only the user's
    echo arrives): after the timeout from HANGAR_CODEX_TURN_STARTUP_TIMEOUT_SECONDS the stuck
    app-server is ended and the turn fails with a clear error; the retry starts a new
    app-server and sends that turn's own input again (not an earlier message)."""
    monkeypatch.setenv("HANGAR_CODEX_TURN_STARTUP_TIMEOUT_SECONDS", "3")
    executor = open_sandbox_executor(agent_sandbox, turn_events)
    try:
        task_id = codex_task(agent_sandbox, executor)
        play(agent_sandbox, {"stall": True}, {"text": "Recovered after the retry."})
        started = time.monotonic()
        failed_turn = send(executor, task_id, "The message that got stuck")["subtaskId"]
        failed = turn_events.wait_type("response.failed", failed_turn)
        assert 2.5 < time.monotonic() - started < 30
        assert "no progress within 3s" in failed["error"] and "Retry" in failed["error"]
        control = codex_control(executor)
        assert control.host.starts == 1 and not control.host.running()  # RW-113
        retry = send(executor, task_id, "", retryOf=failed_turn)["subtaskId"]
        assert retry != failed_turn
        turn_events.wait_type("response.completed", retry)
        assert control.host.starts == 2  # RW-114: a new app-server for the retry
        assert turn_events.text(retry) == "Recovered after the retry."
        model_turns = [
            r for r in agent_sandbox.sandbox.requests() if r["kind"] in ("turn", "stall")
        ]
        last_user = [
            item
            for item in model_turns[-1]["body"]["input"]
            if item.get("role") == "user" and "The message that got stuck" in json.dumps(item)
        ]
        assert last_user  # the failed turn's own input, sent again (RW-116)
        reply = last_messages(executor, task_id, 1)[0]
        assert reply["role"] == "assistant" and reply["content"] == "Recovered after the retry."
    finally:
        executor.close()


def test_an_app_server_that_dies_mid_turn_fails_it_and_the_next_send_works(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    task_id = codex_task(agent_sandbox, sandbox_executor)
    play(
        agent_sandbox,
        {"text": "A reply that will be cut off by a crash.", "delay": 30},
        {"text": "The next send works."},
    )
    doomed = send(sandbox_executor, task_id, "Start")["subtaskId"]
    turn_events.wait_type("response.output_text.delta", doomed)
    pid = codex_control(sandbox_executor).host.pid
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)  # the app-server hangar started (its own process group)
    failed = turn_events.wait_type("response.failed", doomed)
    assert "app-server exited during the turn" in failed["error"]
    following = send(sandbox_executor, task_id, "Again")["subtaskId"]
    turn_events.wait_type("response.completed", following)
    assert turn_events.text(following) == "The next send works."


def test_a_long_tool_call_that_started_is_not_killed_by_the_watchdog(
    agent_sandbox: AgentSandbox,
    isolated_home: Path,
    turn_events: TurnEvents,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RW-112: the first tool item closes the watchdog: a command running longer than the
    startup timeout finishes, and so does the turn."""
    monkeypatch.setenv("HANGAR_CODEX_TURN_STARTUP_TIMEOUT_SECONDS", "3")
    executor = open_sandbox_executor(agent_sandbox, turn_events)
    try:
        task_id = codex_task(agent_sandbox, executor)
        play(agent_sandbox, {"shell": "sleep 6"}, {"text": "Slept well."})
        subtask = send(executor, task_id, "Take a nap")["subtaskId"]
        turn_events.wait_type("response.completed", subtask)
        assert turn_events.text(subtask) == "Slept well."
        assert "response.failed" not in turn_events.types(subtask)
        assert codex_control(executor).host.starts == 1
    finally:
        executor.close()


def process_environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(
        item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item
    )


def test_one_app_server_serves_turns_and_lifecycle_and_a_config_change_restarts_it(
    agent_sandbox: AgentSandbox, sandbox_executor: Executor, turn_events: TurnEvents
) -> None:
    """RW-081, RW-086, RW-087: a send, the model list and an archive share one app-server; the
    same settings again change nothing; new process-level settings end it, and the next use
    starts it with them."""
    task_id = codex_task(agent_sandbox, sandbox_executor)
    play(agent_sandbox, {"text": "One server for all of it."})
    subtask = send(sandbox_executor, task_id, "Hello again")["subtaskId"]
    turn_events.wait_type("response.completed", subtask)
    control = codex_control(sandbox_executor)
    pid = control.host.pid
    sandbox_executor.handle("runtime.tasks.models", {"localTaskId": task_id})
    sandbox_executor.handle("runtime.tasks.rename", {"localTaskId": task_id, "title": "Renamed"})
    assert control.host.pid == pid and control.host.starts == 1
    update = {"runtime": "codex", "environment": {"HANGAR_PROXY_MARK": "on"}}
    assert sandbox_executor.handle("runtime.agents.config.update", update) == {
        "runtime": "codex",
        "environment": ["HANGAR_PROXY_MARK"],
    }
    assert not control.host.running()
    sandbox_executor.handle("runtime.agents.config.update", update)
    sandbox_executor.handle("runtime.tasks.goal.get", {"localTaskId": task_id})
    assert control.host.starts == 2 and control.host.pid is not None
    assert process_environ(control.host.pid)["HANGAR_PROXY_MARK"] == "on"
    sandbox_executor.handle("runtime.agents.config.update", update)  # unchanged: kept running
    assert control.host.running() and control.host.starts == 2
