"""Adopting real sessions into issues: sessions the real Codex, Claude Code and OpenCode CLIs
wrote in the loopback-only sandbox (fake model), read by the real executor, stored by the real
hub, then followed by the real session watcher while the CLI resumes the session."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar, fan_out
from hangar.executor.watcher import SessionWatcher
from hangar.hub.context import HubContext
from hangar.hub.store.local_runs import now
from hangar.hub.workers import outbox
from hangar.hub.workers.adoption import AdoptionWorker
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

pytestmark = pytest.mark.real_agents

FIRST = scenario_from_dict(
    {
        "name": "adopt-first",
        "turns": [
            {"plan": {"items": [{"content": "Write the marker", "status": "in_progress"}]}},
            {"shell": "echo adopted > marker.txt"},
            {"text": "Done: the marker is written."},
        ],
    }
)
SECOND = scenario_from_dict({"name": "adopt-first", "turns": [{"text": "Second answer."}]})
PLAN_TOOL = {"codex": "update_plan", "claude": "TodoWrite", "opencode": "todowrite"}


WRITING = [("Write the marker", "in_progress")]


def _items(checklist: dict[str, Any]) -> list[tuple[str, str]]:
    """Content and status of each item (OpenCode adds the priority it defaults to)."""
    return [(item["content"], item["status"]) for item in checklist["items"]]


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
    return value


def the_task(api: TestClient, runtime: str) -> dict[str, Any]:
    work = api.get("/api/runtime-work").json()
    tasks = [t for p in work["projects"] for t in p["tasks"]] + work["conversations"]
    [task] = [t for t in tasks if t["runtime"] == runtime]
    return task


def messages(api: TestClient, run_id: str) -> list[dict[str, Any]]:
    return list(api.get(f"/api/local-runs/{run_id}/messages").json()["messages"])


def comments(api: TestClient, key: str, ctx: HubContext) -> list[str]:
    outbox.process_batch(ctx.engine, ctx.workspace, at=now() + timedelta(seconds=120))
    return [c["body"] for c in api.get(f"/api/issues/{key}/comments").json()["comments"]]


@pytest.mark.parametrize("cli", ["codex", "claude", "opencode"])
def test_adopting_a_real_session_twice_imports_it_once_and_an_append_arrives(
    cli: str, agent_sandbox: AgentSandbox, hangar_of_sandbox: LocalHangar, api: TestClient
) -> None:
    """LR-159, LR-160: the log of a real session is imported with keys from the
    agent's own ids — a second adoption stores nothing new — and its checklist reaches the
    new issue (CL-037); the history makes no comments; a turn the real CLI adds by resuming
    the session arrives through the session watcher and is synced to comments."""
    run = agent_sandbox.run_agent(cli, FIRST, "Write the marker file")
    assert run.returncode == 0, run.stderr
    task = the_task(api, cli)

    adopted = api.post(
        "/api/runtime-work/adopt",
        json={"deviceId": task["deviceId"], "localTaskId": task["localTaskId"]},
    )
    assert adopted.status_code == 201, adopted.text
    body = adopted.json()
    assert body["issueCreated"] and body["created"]
    key, run_id = body["issueKey"], body["run"]["id"]
    issue = api.get(f"/api/issues/{key}").json()
    assert issue["title"] == "Write the marker file"
    assert body["run"]["status"] == "following"
    assert body["run"]["adoption"]["localTaskId"] == task["localTaskId"]

    log = messages(api, run_id)
    assert body["imported"] == len(log)
    kinds = [m["type"] for m in log]
    assert kinds[0] == "user_input" and kinds[-1] == "final", kinds
    assert log[0]["content"] == "Write the marker file"
    assert log[-1]["content"] == "Done: the marker is written."
    plan = [m for m in log if m["type"] == "tool_use" and m["tool"] == PLAN_TOOL[cli]]
    assert [_items(m["input"]["checklist"]) for m in plan] == [WRITING]
    assert kinds.count("tool_use") == 2 and kinds.count("tool_result") >= 1
    assert all(m["source"] == f"{cli}-transcript" for m in log)
    assert all(task["runtimeHandle"] and str(m["sourceKey"]).startswith(f"{cli}:") for m in log)
    assert _items(api.get(f"/api/issues/{key}").json()["checklist"]) == WRITING

    again = api.post(
        "/api/runtime-work/adopt",
        json={"deviceId": task["deviceId"], "localTaskId": task["localTaskId"], "issueKey": key},
    )
    assert again.status_code == 200, again.text
    assert (again.json()["imported"], again.json()["run"]["id"]) == (0, run_id)
    assert messages(api, run_id) == log
    other = api.post("/api/issues", json={"title": "Another"}).json()["key"]
    clash = api.post(
        "/api/runtime-work/adopt",
        json={"deviceId": task["deviceId"], "localTaskId": task["localTaskId"], "issueKey": other},
    )
    assert clash.status_code == 409 and key in clash.json()["error"]["message"]

    ctx = api.app.state.hub  # type: ignore[attr-defined]
    [top] = comments(api, key, ctx)  # the history makes no comments
    assert top.startswith(f"Adopted a `{cli}` session from `") and "adopt-first" in top

    # Follow it: only the watcher's events can wake the follower (its own poll is an hour).
    executor = hangar_of_sandbox.executor
    follower = AdoptionWorker(ctx, interval=3600).start()
    watcher = SessionWatcher(
        executor.device.device_id,
        executor.stores.homes(),
        executor.settings.paths.home,
        fan_out(ctx.events.publish, follower.notify),
        gate=executor.rescans,
    )
    watcher.start()
    try:
        probe = run.agent_home / "hangar-probe"
        wait_until(lambda: probe.write_text("x") and watcher.batches, 30, "the watcher")
        resumed = agent_sandbox.run_agent(cli, SECOND, "And once more", resume=True)
        assert resumed.returncode == 0, resumed.stderr

        def grown() -> list[dict[str, Any]] | None:
            now_log = messages(api, run_id)
            return now_log if now_log[-1]["content"] == "Second answer." else None

        grown_log = wait_until(grown, 60, "the resumed turn in the run")
    finally:
        watcher.stop()
        follower.stop()
        watcher.join(10)
    assert grown_log[: len(log)] == log
    added = grown_log[len(log) :]
    assert [(m["type"], m["content"]) for m in added] == [
        ("user_input", "And once more"),
        ("final", "Second answer."),
    ]
    assert follower.synced == 2
    signed = f"**{_owner(api)}-local-{cli}**\n\nSecond answer."
    assert comments(api, key, ctx)[1:] == ["And once more", signed]


def _owner(api: TestClient) -> str:
    return str(api.get("/api/members").json()["members"][0]["name"])
