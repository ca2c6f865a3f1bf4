"""Checklists of tasks on another device: OpenCode 1.18.33 and Continue cn 1.5.47, run for
real in the test sandbox, read by an executor in that sandbox's home connecting from
127.0.0.3, through a hub in another home (CL-043..CL-059)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from hangar.testing.agent_runs import AgentRun, AgentSandbox

from .kit import Device, ThreadHub, hub_thread, wait_until

pytestmark = pytest.mark.real_agents
CLIS = ["opencode", "cn"]


def _local(run: AgentRun) -> tuple[list[list[tuple[str, str]]], list[tuple[str, str]] | None]:
    """Every checklist block and the current list, as hangar reads the session in process."""
    from checklist.real import items, lists, read  # tests/checklist, a sibling package

    messages, summary = read(run)
    return [x for m in messages for x in lists(m)], items(summary)


def _remote(hub: ThreadHub, title: str) -> tuple[list[Any], Any]:
    with hub.client(timeout=60) as http:
        view = http.get("/api/runtime-work").json()
        tasks = [t for p in view["projects"] for t in p["tasks"]] + view["conversations"]
        task = next(t for t in tasks if t["title"].startswith(title))
        body = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"], "limit": 200}
        page = http.post("/api/runtime-work/transcript", json=body).json()
    blocks = [
        [(i["content"], i["status"]) for i in b["items"]]
        for m in page["messages"]
        for b in m.get("blocks") or []
        if b["type"] == "checklist"
    ]
    current = page.get("checklist")
    return blocks, [(i["content"], i["status"]) for i in current["items"]] if current else None


def _wait_listed(hub: ThreadHub, title: str) -> None:
    def listed() -> bool:
        with hub.client() as http:
            view = http.get("/api/runtime-work").json()
        tasks = [t for p in view["projects"] for t in p["tasks"]] + view["conversations"]
        return any(t["title"].startswith(title) for t in tasks)

    wait_until(listed, f"{title!r} listed from the remote device")


@pytest.mark.parametrize("cli", CLIS)
def test_a_remote_checklist_is_the_local_one_and_survives_a_reconnect(
    cli: str, agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """CL-043, CL-044, CL-055, CL-056, CL-057, CL-058: the checklist of a task on another
    device (a 10,000+ character list included) is extracted there from the raw tool input and
    reaches the hub exactly as a local read gives it; after the device's connection is lost
    (SIGKILL) and the executor restarts, the same list comes back from the committed
    messages, no update twice, no item marked completed, and no model request was sent to
    restore it."""
    huge = agent_sandbox.run_agent(cli, "checklist-huge", "Write a huge checklist")
    edits = agent_sandbox.run_agent(cli, "checklist-edits", "Edit the checklist")
    assert huge.returncode == edits.returncode == 0, edits.stderr
    local = {"Write a huge": _local(huge), "Edit the": _local(edits)}
    assert sum(len(c) for c, _ in local["Write a huge"][1] or []) > 10_000
    requests = len(agent_sandbox.sandbox.requests())
    with hub_thread(tmp_path / "hub") as hub:
        root = agent_sandbox.host(agent_sandbox.homes.home).parent
        device = Device("remote", root, "127.0.0.3", [hub.url], token=hub.add_device("remote"))
        device.start()
        try:
            for title, expected in local.items():
                _wait_listed(hub, title)
                assert _remote(hub, title) == expected, title
            device.signal(signal.SIGKILL)
            device.process.wait(timeout=15)  # type: ignore[union-attr]
            device._finish()
            wait_until(lambda: not hub.ctx.device_infos(), "the device offline")
            device.token = None
            device.start()
            for title, expected in local.items():
                _wait_listed(hub, title)
                assert _remote(hub, title) == expected, title
        finally:
            device.stop()
    assert len(agent_sandbox.sandbox.requests()) == requests


@pytest.mark.parametrize("cli", CLIS)
def test_history_of_a_remote_task_is_restored_turn_by_turn(
    cli: str, agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """CL-055, CL-059: a second turn made while the device is connected shows as the
    current list, the first turn's list stays on its own message, both as read locally; no
    separate channel: the same transcript call carries them."""
    first = agent_sandbox.run_agent(cli, "plan", "Plan the work")
    assert first.returncode == 0, first.stderr
    with hub_thread(tmp_path / "hub") as hub:
        root = agent_sandbox.host(agent_sandbox.homes.home).parent
        device = Device("remote", root, "127.0.0.3", [hub.url], token=hub.add_device("remote"))
        device.start()
        try:
            _wait_listed(hub, "Plan the work")
            assert _remote(hub, "Plan the work") == _local(first)
            second = agent_sandbox.run_agent(
                cli, "checklist-second-turn", "Plan the next work", resume=True, cwd="projects/plan"
            )
            assert second.returncode == 0, second.stderr
            expected = _local(second)
            assert expected[1] == [("Next step", "pending")]
            wait_until(lambda: _remote(hub, "Plan the work") == expected, "the second turn")
        finally:
            device.stop()
