"""Creating a task on another device: Claude Code 2.1.332 run for real in the test sandbox,
driven by an executor in its own home connecting from 127.0.0.2, through a hub in another
home; everything through the hub's HTTP API and its SSE stream, as the web UI does."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .kit import hub_thread, sandbox_device, sse
from .test_remote_turns import SLOW, turn_event

pytestmark = pytest.mark.real_agents


def test_a_task_is_created_on_another_device_and_replies_there(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """RW-272, RW-273: the page's localTaskId goes to the remote device, which answers with
    it; the device's projects and the agent's models come over its WebSocket, the reply
    streams to the hub's SSE clients with the device's identity, and the task lists under
    its project on that device; the hub's database never holds the id."""
    shop = scenario_from_dict(
        {
            "name": "shop",
            "workspace": {"git": True, "files": {"cart.py": "TOTAL = 0\n"}},
            "turns": [{"text": "Looked at the shop."}],
        }
    )
    first = agent_sandbox.run_agent("claude", shop, "Look at the shop", cwd="projects/shop")
    assert first.returncode == 0, first.stderr
    project = str(first.cwd)
    with (
        hub_thread(tmp_path / "hub") as hub,
        sandbox_device(
            agent_sandbox, tmp_path / "laptop", hub, "127.0.0.2", ("claude",),
            hub.add_device("laptop"),
        ) as executor,
        sse(hub.url, hub.token) as events,
        hub.client(timeout=SLOW) as http,
    ):  # fmt: skip
        device_id = executor.device.device_id
        (offered,) = http.get("/api/runtime-work/projects").json()["devices"]
        assert offered["deviceId"] == device_id and "claude" in offered["agents"]
        assert project in [p["workspacePath"] for p in offered["projects"]]
        models = http.post(
            "/api/runtime-work/agent-models", json={"deviceId": device_id, "runtime": "claude"}
        ).json()
        assert "sonnet" in [m["id"] for m in models["models"]]

        task_id = uuid.uuid4().hex
        agent_sandbox.sandbox.load(
            scenario_from_dict({"name": "create", "turns": [{"text": "Created far away."}]})
        )
        created = http.post(
            "/api/runtime-work/create",
            json={"deviceId": device_id, "localTaskId": task_id, "runtime": "claude",
                  "mode": "current_workspace", "workspacePath": project,
                  "text": "Plan the checkout page", "model": {"modelId": "sonnet"}},
        )  # fmt: skip
        assert created.status_code == 200, created.text
        assert created.json()["localTaskId"] == task_id
        assert created.json()["deviceId"] == device_id
        done = turn_event(events, "response.completed")
        assert done["deviceId"] == device_id and done["localTaskId"] == task_id
        view = http.get("/api/runtime-work").json()
        (group,) = [g for g in view["projects"] if g["workspacePath"] == project]
        titles = {t["localTaskId"]: t["title"] for t in group["tasks"]}
        assert titles[task_id] == "Plan the checkout page"
        page = http.post(
            "/api/runtime-work/transcript",
            json={"deviceId": device_id, "localTaskId": task_id, "refresh": True},
        ).json()
        contents = [m["content"] for m in page["messages"]]
        assert contents[-2:] == ["Plan the checkout page", "Created far away."]
    files = list((tmp_path / "hub" / "hangar-home").glob("hub.db*"))  # with its WAL
    assert files and not [f for f in files if task_id.encode() in f.read_bytes()]
