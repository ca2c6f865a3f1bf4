"""Approvals through the hub's API: the real Codex asks before running a command."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hangar.agents.codex.app_server import CodexAppServer
from hangar.composition import LocalHangar
from hangar.hub.events import turn_relay
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import builtin_scenario

from .conftest import TurnEvents, sandbox_stores
from .test_codex_send import play

pytestmark = pytest.mark.real_agents
TOKEN = "turns-test-token-0123456789"


@pytest.fixture
def hub(
    agent_sandbox: AgentSandbox, hangar_home: Path, turn_events: TurnEvents
) -> Iterator[tuple[TestClient, LocalHangar]]:
    stores = sandbox_stores(agent_sandbox)
    local = LocalHangar.open(
        stores={k: stores[k] for k in ("codex", "claude")}, launcher=agent_sandbox.launcher()
    )
    relay = turn_relay(local.events)

    def tee(event: str, data: dict[str, Any]) -> None:
        turn_events(event, data)
        relay(event, data)

    local.executor.attach_events(tee)
    app = local.create_app(TOKEN)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(app, base_url="http://127.0.0.1", headers=headers) as client:
        yield client, local
    local.close()


def ask_before_commands(agent_sandbox: AgentSandbox) -> None:
    """The user's own Codex policy: a sandboxed workspace, asking before anything leaves it
    (hangar never overrides it)."""
    config = agent_sandbox.host(agent_sandbox.homes.home / ".codex" / "config.toml")
    text = config.read_text()
    text = text.replace('approval_policy = "never"', 'approval_policy = "on-request"')
    text = text.replace('sandbox_mode = "danger-full-access"', 'sandbox_mode = "workspace-write"')
    config.write_text(text)


def user_thread(agent_sandbox: AgentSandbox) -> Path:
    """A thread the user started in Codex (an app-server client) under their own policy,
    with one finished turn; returns its working directory on the host."""
    cwd = agent_sandbox.workspace("projects/app", builtin_scenario("hello").workspace)
    process = agent_sandbox.spawn("codex", ["app-server"], cwd=cwd)
    server = CodexAppServer([])
    try:
        server.attach(process, timeout=60)
        thread = server.request("thread/start", {"cwd": str(cwd)})["thread"]["id"]
        play(agent_sandbox, {"text": "Hello from the first turn."})
        text = {"type": "text", "text": "say hello", "text_elements": []}
        server.request("turn/start", {"threadId": thread, "input": [text], "model": "fake-model"})
        deadline = time.monotonic() + 60
        while not any(n["method"] == "turn/completed" for n in list(server.notifications)):
            assert time.monotonic() < deadline, "the user's first turn completed"
            time.sleep(0.05)
    finally:
        server.close()
    return agent_sandbox.host(cwd)


ESCALATED = {
    "call": {
        "exec_command": {
            "cmd": "echo approved > approved.txt",
            "sandbox_permissions": "require_escalated",
            "justification": "Write the marker outside the sandbox",
        }
    }
}


def test_a_codex_approval_request_is_shown_and_answered_through_the_api(
    agent_sandbox: AgentSandbox, hub: tuple[TestClient, LocalHangar], turn_events: TurnEvents
) -> None:
    """RW-102: a send through ``POST /api/runtime-work/send``. A thread started under the
    user's on-request policy asks before an escalated command:
    the request reaches the API (activity, the task list's mark) and the command runs only
    after the answer given there; an answered request cannot be answered twice."""
    client, local = hub
    agent_sandbox.offer_codex_model()
    ask_before_commands(agent_sandbox)
    cwd = user_thread(agent_sandbox)
    device = local.executor.device.device_id
    work = client.get("/api/runtime-work").json()
    (task,) = [t for p in work["projects"] for t in p["tasks"]] + work["conversations"]
    play(agent_sandbox, ESCALATED, {"text": "Ran it."})
    sent = client.post(
        "/api/runtime-work/send",
        json={
            "deviceId": device,
            "localTaskId": task["localTaskId"],
            "text": "Write the marker",
            "model": {"modelId": "fake-model"},
        },
    )
    assert sent.status_code == 200, sent.text
    subtask = sent.json()["subtaskId"]
    asked = turn_events.wait_type("approval.requested", subtask)["approval"]
    assert asked["kind"] == "command" and "echo approved" in asked["detail"]
    assert asked["decisions"] == ["approve", "approve_for_session", "deny"]
    # What a page that reloads finds: the open request, and the task marked in the list.
    open_now = client.get("/api/runtime-work/activity").json()
    assert [a["approvalId"] for a in open_now["approvals"]] == [asked["approvalId"]]
    listed = client.get("/api/runtime-work").json()
    (marked,) = [t for p in listed["projects"] for t in p["tasks"]] + listed["conversations"]
    assert marked["pendingApprovals"] == 1 and marked["replying"] is True
    assert not (cwd / "approved.txt").exists()  # nothing runs before the answer
    answered = client.post(
        "/api/runtime-work/approvals/answer",
        json={
            "deviceId": device,
            "localTaskId": task["localTaskId"],
            "approvalId": asked["approvalId"],
            "decision": "approve",
        },
    )
    assert answered.status_code == 200, answered.text
    turn_events.wait_type("response.completed", subtask)
    assert (cwd / "approved.txt").read_text() == "approved\n"
    assert client.get("/api/runtime-work/activity").json() == {"turns": [], "approvals": []}
    again = client.post(
        "/api/runtime-work/approvals/answer",
        json={
            "deviceId": device,
            "localTaskId": task["localTaskId"],
            "approvalId": asked["approvalId"],
            "decision": "approve",
        },
    )
    assert again.status_code == 404 and again.json()["error"]["code"] == "not_found"
