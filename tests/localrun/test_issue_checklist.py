"""The agent's checklist on its issue, through the hub's real API and pages: what a run posts
(messages whose ``input.checklist`` a provider's ledger committed) and what the issue shows."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from .test_hub_local_runs import drain_outbox, new_issue, new_run, post


def update(
    client: TestClient, run_id: str, key: str, turn: str, items: list[tuple[str, str]]
) -> Any:
    """A provider's ``tool_use`` carrying a committed update for ``turn``."""
    checklist = {
        "source": "claude.TodoWrite",
        "items": [{"content": content, "status": status} for content, status in items],
    }
    return post(
        client,
        run_id,
        type="tool_use",
        tool="TodoWrite",
        source="claude-jsonl",
        sourceKey=key,
        input={"turnKey": turn, "checklist": checklist},
    )


def user_input(client: TestClient, run_id: str, turn: str) -> None:
    reply = post(
        client,
        run_id,
        type="user_input",
        source="claude-jsonl",
        sourceKey=f"user-{turn}",
        content=f"request {turn}",
        input={"turnKey": turn},
    )
    assert reply.status_code == 201, reply.text


def shown(client: TestClient, key: str) -> list[tuple[str, str]] | None:
    checklist = client.get(f"/api/issues/{key}").json()["checklist"]
    if checklist is None:
        return None
    return [(i["content"], i["status"]) for i in checklist["items"]]


def test_each_update_replaces_the_whole_list_on_the_issue(client: TestClient) -> None:
    """An update replaces the issue's list as a whole (reordered, items gone, duplicate texts
    kept); the API shows progress and where the list came from."""
    key = new_issue(client)
    run = new_run(client, key)
    assert shown(client, key) is None
    user_input(client, run["id"], "t1")
    update(client, run["id"], "a", "t1", [("Alpha", "pending"), ("Beta", "pending")])
    update(client, run["id"], "b", "t1", [("Beta", "completed"), ("Same", "pending")])
    update(client, run["id"], "c", "t1", [("Same", "completed"), ("Same", "in_progress")])
    checklist = client.get(f"/api/issues/{key}").json()["checklist"]
    assert [(i["content"], i["status"]) for i in checklist["items"]] == [
        ("Same", "completed"),
        ("Same", "in_progress"),
    ]
    assert (checklist["completed"], checklist["total"]) == (1, 2)
    assert (checklist["runId"], checklist["cliName"], checklist["source"]) == (
        run["id"],
        "codex",
        "claude.TodoWrite",
    )
    listed = client.get("/api/issues").json()["issues"]
    assert [i["checklist"]["total"] for i in listed if i["key"] == key] == [2]
    assert client.get(f"/api/local-runs/{run['id']}").json()["checklist"]["total"] == 2


def test_an_invalid_update_is_refused_and_the_list_stays(client: TestClient) -> None:
    """CL-025, CL-026: a message whose checklist is not a valid list is a 422 naming
    ``input.checklist``; the issue keeps the previous list."""
    key = new_issue(client)
    run = new_run(client, key)
    update(client, run["id"], "a", "t1", [("Keep me", "in_progress")])
    bad = post(
        client,
        run["id"],
        type="tool_use",
        source="claude-jsonl",
        sourceKey="b",
        input={"turnKey": "t1", "checklist": {"source": "x", "items": [{"content": "B"}]}},
    )
    assert bad.status_code == 422, bad.text
    assert bad.json()["error"]["details"]["problems"][0]["field"] == "input.checklist"
    assert shown(client, key) == [("Keep me", "in_progress")]


def test_a_clear_stays_cleared_and_is_shown_as_cleared(
    client: TestClient, browser_client: TestClient
) -> None:
    """CL-023, CL-030, CL-070: an empty update clears the list; the issue keeps it as cleared
    (present, no items), never the older content; the page says so."""
    key = new_issue(client)
    run = new_run(client, key)
    update(client, run["id"], "a", "t1", [("Temporary step", "pending")])
    page = browser_client.get(f"/issues/{key}").text
    assert "Temporary step" in page and "0/1 done" in page
    update(client, run["id"], "b", "t1", [])
    assert shown(client, key) == []
    page = browser_client.get(f"/issues/{key}").text
    assert "Temporary step" not in page
    assert "The agent cleared its checklist." in page and "0/0 done" in page
    partial = browser_client.get(f"/issues/{key}/checklist").text
    assert 'id="issue-checklist"' in partial and "cleared its checklist" in partial


def test_a_late_update_of_an_older_turn_never_replaces_the_newer_list(
    client: TestClient,
) -> None:
    """CL-035, CL-036: turns are ordered by their user input in the run; an update that
    names an older turn stays on its message but the issue keeps the newer turn's list."""
    key = new_issue(client)
    run = new_run(client, key)
    user_input(client, run["id"], "t1")
    update(client, run["id"], "a", "t1", [("Old", "pending")])
    user_input(client, run["id"], "t2")
    update(client, run["id"], "b", "t2", [("New", "in_progress")])
    late = update(client, run["id"], "c", "t1", [("Old", "completed")])
    assert late.status_code == 201  # kept in the log, with its checklist
    assert late.json()["input"]["checklist"]["items"][0]["status"] == "completed"
    assert shown(client, key) == [("New", "in_progress")]


def test_the_final_list_stays_after_the_run_and_a_newer_run_replaces_it(
    client: TestClient, hub_app: FastAPI, browser_client: TestClient
) -> None:
    """CL-065: the run ending never rewrites its list; the issue shows it until a
    newer run writes its own. No comment is ever written for an update."""
    key = new_issue(client)
    first = new_run(client, key, sourceKey="first")
    update(client, first["id"], "a", "t1", [("Ship it", "in_progress"), ("Test", "pending")])
    finished = client.patch(f"/api/local-runs/{first['id']}", json={"status": "failed"})
    assert finished.json()["status"] == "failed"
    assert shown(client, key) == [("Ship it", "in_progress"), ("Test", "pending")]
    second = new_run(client, key, sourceKey="second", cliName="claude")
    assert shown(client, key) == [("Ship it", "in_progress"), ("Test", "pending")]
    update(client, second["id"], "b", "u1", [("Next", "pending")])
    assert shown(client, key) == [("Next", "pending")]
    assert client.get(f"/api/issues/{key}").json()["checklist"]["cliName"] == "claude"
    update(client, first["id"], "c", "t1", [("Ship it", "completed")])  # the older run, late
    assert shown(client, key) == [("Next", "pending")]
    drain_outbox(hub_app, later=120)
    comments = client.get(f"/api/issues/{key}/comments").json()["comments"]
    assert [c["body"].split(" run ")[0] for c in comments] == [
        "Started local `codex`",
        "Started local `claude`",
    ]
    listing = browser_client.get("/issues").text
    assert 'aria-label="0 of 1 done"' in listing
