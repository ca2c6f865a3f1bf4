"""Checklists of tasks on another device: OpenCode 1.18.33 and Continue cn 1.5.47, run for
real in the test sandbox, read by an executor in that sandbox's home connecting from
127.0.0.3, through a hub in another home."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from hangar.testing.agent_runs import AgentRun, AgentSandbox
from hangar.testing.scenarios import builtin_scenario, scenario_from_dict

from .kit import Device, ThreadHub, hub_thread, sandbox_device, sse, wait_until
from .test_remote_turns import turn_event

pytestmark = pytest.mark.real_agents
CLIS = ["opencode", "cn"]


def _local(run: AgentRun) -> tuple[list[list[tuple[str, str]]], list[tuple[str, str]] | None]:
    """Every checklist block and the current list, as hangar reads the session in process."""
    from checklist.real import items, lists, read  # tests/checklist, a sibling package

    messages, summary = read(run)
    return [x for m in messages for x in lists(m)], items(summary)


def _mine(task: dict[str, Any], session: str) -> bool:
    """Whether ``task`` is the agent's session ``session`` (its opaque handle names it)."""
    return any(session in str(value) for value in task["runtimeHandle"].values())


def _tasks(hub: ThreadHub) -> list[dict[str, Any]]:
    with hub.client() as http:
        view = http.get("/api/runtime-work").json()
    tasks: list[dict[str, Any]] = [t for p in view["projects"] for t in p["tasks"]]
    return tasks + view["conversations"]


def _remote(hub: ThreadHub, session: str) -> tuple[list[Any], Any]:
    task = next(t for t in _tasks(hub) if _mine(t, session))
    with hub.client(timeout=60) as http:
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


def _wait_listed(hub: ThreadHub, session: str) -> None:
    wait_until(
        lambda: any(_mine(t, session) for t in _tasks(hub)), f"{session} listed from the device"
    )


@pytest.mark.parametrize("cli", CLIS)
def test_a_remote_checklist_is_the_local_one_and_survives_a_reconnect(
    cli: str, agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """CL-044, CL-055, CL-056, CL-057, CL-058: the checklist of a task on another
    device (a 10,000+ character list included) is extracted there from the raw tool input and
    reaches the hub exactly as a local read gives it; after the device's connection is lost
    (SIGKILL) and the executor restarts, the same list comes back from the committed
    messages, no update twice, no item marked completed, and no model request was sent to
    restore it."""
    huge = agent_sandbox.run_agent(cli, "checklist-huge", "Write a huge checklist")
    edits = agent_sandbox.run_agent(cli, "checklist-edits", "Edit the checklist")
    assert huge.returncode == edits.returncode == 0, edits.stderr
    assert huge.session_id and edits.session_id
    local = {huge.session_id: _local(huge), edits.session_id: _local(edits)}
    assert sum(len(c) for c, _ in local[huge.session_id][1] or []) > 10_000
    requests = len(agent_sandbox.sandbox.requests())
    with hub_thread(tmp_path / "hub") as hub:
        root = agent_sandbox.host(agent_sandbox.homes.home).parent
        device = Device("remote", root, "127.0.0.3", [hub.url], token=hub.add_device("remote"))
        device.start()
        try:
            for session, expected in local.items():
                _wait_listed(hub, session)
                assert _remote(hub, session) == expected, session
            device.signal(signal.SIGKILL)
            device.process.wait(timeout=15)  # type: ignore[union-attr]
            device._finish()
            wait_until(lambda: not hub.ctx.device_infos(), "the device offline")
            device.token = None
            device.start()
            for session, expected in local.items():
                _wait_listed(hub, session)
                assert _remote(hub, session) == expected, session
        finally:
            device.stop()
    assert len(agent_sandbox.sandbox.requests()) == requests


@pytest.mark.parametrize("cli", CLIS)
def test_history_of_a_remote_task_is_restored_turn_by_turn(
    cli: str, agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """CL-055, CL-059: a second turn made while the device is connected shows as the
    current list (also in the web UI's strip), the first turn's list stays on its own
    message, both as read locally; no separate channel: the same transcript call carries
    them."""
    first = agent_sandbox.run_agent(cli, "plan", "Plan the work")
    assert first.returncode == 0, first.stderr
    with hub_thread(tmp_path / "hub") as hub:
        root = agent_sandbox.host(agent_sandbox.homes.home).parent
        device = Device("remote", root, "127.0.0.3", [hub.url], token=hub.add_device("remote"))
        device.start()
        try:
            assert first.session_id
            _wait_listed(hub, first.session_id)
            assert _remote(hub, first.session_id) == _local(first)
            second = agent_sandbox.run_agent(
                cli, "checklist-second-turn", "Plan the next work", resume=True, cwd="projects/plan"
            )
            assert second.returncode == 0, second.stderr
            expected = _local(second)
            assert expected[1] == [("Next step", "pending")]
            wait_until(lambda: _remote(hub, first.session_id or "") == expected, "the second turn")
            # The web UI's strip on top of the transcript: the same page, server-rendered.
            task = next(t for t in _tasks(hub) if _mine(t, first.session_id or ""))
            with hub.client() as http:
                http.post("/login", data={"token": hub.token})
                query = {"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]}
                html = http.get("/ui/transcript", params=query).text
            strip = html.split('<template class="checklist-template">', 1)[1].split("</template>")[
                0
            ]
            assert 'id="checklist-strip"' in strip and "Next step" in strip
        finally:
            device.stop()


def _read(hub: ThreadHub, address: dict[str, str]) -> tuple[list[Any], Any]:
    """Every checklist block and the current list of a task, as the hub reads it."""
    with hub.client(timeout=60) as http:
        body = {**address, "limit": 200, "refresh": True}
        page = http.post("/api/runtime-work/transcript", json=body).json()
    blocks = [
        [(i["content"], i["status"]) for i in b["items"]]
        for m in page["messages"]
        for b in m.get("blocks") or []
        if b["type"] == "checklist"
    ]
    current = page.get("checklist")
    return blocks, [(i["content"], i["status"]) for i in current["items"]] if current else None


def _checklist(hub: ThreadHub, address: dict[str, str]) -> Any:
    return _read(hub, address)[1]


def _send(hub: ThreadHub, address: dict[str, str], text: str) -> str:
    body = {**address, "text": text, "model": {"modelId": "fake-model", "modelType": "fake"}}
    with hub.client(timeout=60) as http:
        sent = http.post("/api/runtime-work/send", json=body)
    assert sent.status_code == 200, sent.text
    subtask: str = sent.json()["subtaskId"]
    return subtask


def _play(agent_sandbox: AgentSandbox, *turns: dict[str, Any]) -> None:
    agent_sandbox.sandbox.load(scenario_from_dict({"name": "remote", "turns": list(turns)}))


def test_opencode_on_another_device_cancel_and_reconnect_and_continue(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """CL-032, CL-055, CL-057, CL-058: an OpenCode task on another device (an
    executor in its own home, 127.0.0.3, the CLI in the sandbox) continued through the hub:
    its next turn's list becomes current; a cancelled reply that wrote no list leaves every
    item as it was (none completed) and no list current; after the executor stops and starts
    again the same lists come back with no model request sent, and the task continues with a
    further update."""
    first = agent_sandbox.run_agent("opencode", "plan", "Plan the work")
    assert first.returncode == 0, first.stderr
    planned = _local(first)[1]
    with hub_thread(tmp_path / "hub") as hub, sse(hub.url, hub.token) as events:
        token = hub.add_device("remote")
        root = tmp_path / "remote"
        with sandbox_device(agent_sandbox, root, hub, "127.0.0.3", ("opencode",), token) as ex:
            (task,) = _tasks(hub)
            address = {"deviceId": ex.device.device_id, "localTaskId": task["localTaskId"]}
            assert _checklist(hub, address) == planned
            agent_sandbox.sandbox.load(builtin_scenario("checklist-second-turn"))
            turn_event(events, "response.completed", _send(hub, address, "Plan the next work"))
            assert _checklist(hub, address) == [("Next step", "pending")]

            _play(agent_sandbox, {"text": "A long answer that never gets to finish.", "delay": 30})
            long_turn = _send(hub, address, "Tell me everything")
            turn_event(events, "response.output_text.delta", long_turn)
            with hub.client() as http:
                cancelled = http.post("/api/runtime-work/cancel", json=address).json()
            assert cancelled["accepted"] is True
            turn_event(events, "response.incomplete", long_turn)
            blocks, current = _read(hub, address)
            assert blocks[-1] == [("Next step", "pending")] and current is None
        wait_until(lambda: not hub.ctx.device_infos(), "the device offline")
        requests = len(agent_sandbox.sandbox.requests())
        with sandbox_device(agent_sandbox, root, hub, "127.0.0.3", ("opencode",), token):
            assert _read(hub, address) == (blocks, None)
            assert len(agent_sandbox.sandbox.requests()) == requests  # nothing re-sent
            _play(
                agent_sandbox,
                {"plan": {"items": [{"content": "Next step", "status": "completed"}]}},
                {"text": "Done with the next step."},
            )
            turn_event(events, "response.completed", _send(hub, address, "Finish it"))
            assert _read(hub, address) == (
                [*blocks, [("Next step", "completed")]],
                [("Next step", "completed")],
            )


def test_continue_on_another_device_cannot_be_continued_from_hangar(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """CL-075: Continue's cn has no control hangar drives: a send or cancel to a cn task on
    another device answers 501 ``not_supported`` naming the agent, exactly as for a local
    one, and its checklist is still read from the device."""
    first = agent_sandbox.run_agent("cn", "plan", "Plan the work")
    assert first.returncode == 0, first.stderr
    with hub_thread(tmp_path / "hub") as hub:
        token = hub.add_device("remote")
        root = tmp_path / "remote"
        with sandbox_device(agent_sandbox, root, hub, "127.0.0.3", ("continue",), token) as ex:
            (task,) = _tasks(hub)
            address = {"deviceId": ex.device.device_id, "localTaskId": task["localTaskId"]}
            assert _checklist(hub, address) == _local(first)[1]
            body = {**address, "text": "Go on", "model": {"modelId": "fake-model"}}
            with hub.client() as http:
                for route, payload in (("send", body), ("cancel", address)):
                    refused = http.post(f"/api/runtime-work/{route}", json=payload)
                    assert refused.status_code == 501, refused.text
                    assert refused.json()["error"]["code"] == "not_supported"
