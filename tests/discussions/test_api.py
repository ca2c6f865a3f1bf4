"""`/api/discussions…` on the real hub app over a real SQLite hub database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar
from hangar.hub.store import schema
from hangar.localrun.discussion.plans import plan_digest
from hub.test_errors import assert_error_shape  # tests/hub, a sibling package

PLAN = "# Cache the index\n\n1. Persist the turn table.\n"
CLIENT_A, CLIENT_B = "cli-aaaaaaaa", "cli-bbbbbbbb"


def open_(client: TestClient, session: str | None = None, who: str = CLIENT_A) -> Any:
    body: dict[str, Any] = {"cliName": "claude", "provider": "claude", "clientId": who}
    if session:
        body["providerSessionId"] = session
    return client.post("/api/discussions", json=body)


def turn(client: TestClient, discussion: str, role: str, content: str, key: str) -> Any:
    body = {"role": role, "content": content, "source": "claude-jsonl", "sourceKey": key}
    return client.post(f"/api/discussions/{discussion}/turns", json=body)


def with_plan(client: TestClient) -> str:
    discussion = open_(client, "s-1").json()["id"]
    assert turn(client, discussion, "user", "How do we cache?", "u1").status_code == 201
    assert turn(client, discussion, "plan", PLAN, "p1").status_code == 201
    return str(discussion)


def test_create_then_resume_the_open_discussion_of_a_provider_session(client: TestClient) -> None:
    """LR-069, LR-119: a new discussion is created (201, no issue, no run: LR-008); asking
    again for the same provider session gives the same one back (200, resumed) once its
    terminal has let go; another session gets a new one."""
    created = open_(client, "s-1")
    assert created.status_code == 201
    first = created.json()
    assert (first["resumed"], first["issueKey"], first["runId"]) == (False, None, None)
    release = {"clientId": CLIENT_A, "release": True}
    assert client.patch(f"/api/discussions/{first['id']}", json=release).status_code == 200
    again = open_(client, "s-1", who=CLIENT_B)
    assert (again.status_code, again.json()["id"], again.json()["resumed"]) == (
        200,
        first["id"],
        True,
    )
    other = open_(client, "s-2", who=CLIENT_B)
    assert other.status_code == 201 and other.json()["id"] != first["id"]


def test_a_discussion_held_by_another_terminal_is_in_use_until_its_hold_lapses(
    client: TestClient, state: LocalHangar
) -> None:
    """Bad input (two terminals): opening a discussion another client holds is 409
    ``discussion_in_use`` in the one error shape; once the hold lapses it can be resumed."""
    first = open_(client, "s-1").json()
    refused = open_(client, "s-1", who=CLIENT_B)
    assert refused.status_code == 409
    error = assert_error_shape(refused.json())
    assert error["code"] == "discussion_in_use"
    assert error["details"]["discussionId"] == first["id"]  # type: ignore[index]
    past = datetime.now(UTC) - timedelta(seconds=1)
    with state.hub_engine.begin() as conn:  # the holder went away without a goodbye
        conn.execute(sa.update(schema.discussions).values(held_until=past))
    assert open_(client, "s-1", who=CLIENT_B).status_code == 200


def test_a_discussion_that_became_an_issue_is_not_resumed(client: TestClient) -> None:
    """LR-069: only an *unfinished* discussion is resumed; a finished one's session starts a
    new discussion."""
    discussion = with_plan(client)
    body = {"planDigest": plan_digest(PLAN), "title": "Cache"}
    assert client.post(f"/api/discussions/{discussion}/issue", json=body).status_code == 201
    client.patch(f"/api/discussions/{discussion}", json={"clientId": CLIENT_A, "release": True})
    again = open_(client, "s-1", who=CLIENT_B)
    assert again.status_code == 201 and again.json()["id"] != discussion


def test_turns_are_stored_once_per_source_key(client: TestClient) -> None:
    discussion = open_(client).json()["id"]
    assert turn(client, discussion, "user", "How do we cache?", "u1").status_code == 201
    assert turn(client, discussion, "user", "How do we cache?", "u1").status_code == 200
    found = client.get(f"/api/discussions/{discussion}").json()
    assert [(t["seq"], t["role"]) for t in found["turns"]] == [(1, "user")]
    assert found["title"] == "How do we cache?"


@pytest.mark.parametrize("role", ["thinking", "tool_use", "tool_result", "status", "error"])
def test_only_questions_answers_and_plans_can_be_stored(client: TestClient, role: str) -> None:
    """LR-072, LR-073: the hub has no place for thinking, tool calls, tool results or status
    events: such a turn is refused (422 naming the field) and nothing is stored."""
    discussion = open_(client).json()["id"]
    refused = turn(client, discussion, role, "anything", "k1")
    assert refused.status_code == 422
    assert assert_error_shape(refused.json())["details"]["problems"][0]["field"] == "role"  # type: ignore[index]
    assert client.get(f"/api/discussions/{discussion}").json()["turns"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"cliName": "claude", "provider": "claude", "clientId": CLIENT_A, "colour": 1}, "colour"),
        ({"cliName": "claude", "provider": "claude"}, "clientId"),
        ({"cliName": 7, "provider": "claude", "clientId": CLIENT_A}, "cliName"),
    ],
)
def test_bodies_are_decoded_strictly(client: TestClient, body: dict[str, Any], field: str) -> None:
    response = client.post("/api/discussions", json=body)
    assert response.status_code == 422
    error = assert_error_shape(response.json())
    assert field in error["details"]["problems"][0]["field"]  # type: ignore[index]


def test_the_issue_is_made_from_the_saved_plan_and_the_discussion_is_its_source(
    client: TestClient,
) -> None:
    """LR-087, LR-088, LR-089: the description is the saved plan exactly; the issue names the
    discussion as its source; the discussion names the issue and is finished; a retried
    request returns the same issue (200), never a second one."""
    discussion = with_plan(client)
    body = {"planDigest": plan_digest(PLAN), "title": "Cache", "labels": ["perf"]}
    made = client.post(f"/api/discussions/{discussion}/issue", json=body)
    assert made.status_code == 201
    issue = made.json()
    assert issue["description"] == PLAN and issue["labels"] == ["perf"]
    assert issue["sourceDiscussionId"] == discussion
    again = client.post(f"/api/discussions/{discussion}/issue", json=body)
    assert (again.status_code, again.json()["key"]) == (200, issue["key"])
    assert len(client.get("/api/issues").json()["issues"]) == 1
    found = client.get(f"/api/discussions/{discussion}").json()
    assert (found["status"], found["issueKey"]) == ("issue_created", issue["key"])


def test_a_plan_that_is_not_the_one_confirmed_is_refused(client: TestClient) -> None:
    """LR-088: the issue is created only from the Markdown the user confirmed."""
    discussion = with_plan(client)
    body = {"planDigest": plan_digest(PLAN + "changed"), "title": "Cache"}
    refused = client.post(f"/api/discussions/{discussion}/issue", json=body)
    assert refused.status_code == 409
    assert assert_error_shape(refused.json())["code"] == "plan_changed"
    assert client.get("/api/issues").json()["issues"] == []


def test_no_plan_no_issue_and_an_answer_can_be_the_plan(client: TestClient) -> None:
    discussion = open_(client).json()["id"]
    body = {"planDigest": plan_digest(""), "title": "Nothing"}
    refused = client.post(f"/api/discussions/{discussion}/issue", json=body)
    assert refused.status_code == 400 and "no plan" in refused.json()["error"]["message"]
    turn(client, discussion, "assistant", "Use a cache.", "a1")
    body = {"planDigest": plan_digest("Use a cache."), "title": "Cache", "planSourceKey": "a1"}
    made = client.post(f"/api/discussions/{discussion}/issue", json=body)
    assert made.status_code == 201 and made.json()["description"] == "Use a cache."


def test_handing_to_an_agent_needs_an_agent_member(client: TestClient) -> None:
    """LR-091: "hand to an agent" assigns an agent member of the workspace, nobody else."""
    discussion = with_plan(client)
    owner = client.get("/api/members").json()["members"][0]
    body = {"planDigest": plan_digest(PLAN), "title": "Cache", "mode": "agent"}
    for assignee in (None, owner["id"]):
        refused = client.post(
            f"/api/discussions/{discussion}/issue", json={**body, "assigneeId": assignee}
        )
        assert refused.status_code in (400, 422), refused.text
    agent = client.post("/api/members", json={"name": "Review bot", "role": "agent"}).json()
    assert agent["role"] == "agent"
    made = client.post(
        f"/api/discussions/{discussion}/issue", json={**body, "assigneeId": agent["id"]}
    )
    assert made.status_code == 201 and made.json()["assigneeId"] == agent["id"]
    assert client.get(f"/api/discussions/{discussion}").json()["executionMode"] == "agent"


def test_link_records_the_run_that_goes_on_and_refuses_another_issues_run(
    client: TestClient,
) -> None:
    """LR-089, LR-090: the run created for "continue in this CLI" is recorded on the
    discussion; a run of another issue, or another issue, is a conflict."""
    discussion = with_plan(client)
    body = {"planDigest": plan_digest(PLAN), "title": "Cache"}
    issue = client.post(f"/api/discussions/{discussion}/issue", json=body).json()
    other = client.post("/api/issues", json={"title": "Other"}).json()
    run = client.post(f"/api/issues/{issue['key']}/local-runs", json={"cliName": "claude"}).json()
    stray = client.post(f"/api/issues/{other['key']}/local-runs", json={"cliName": "x"}).json()
    bad = client.post(
        f"/api/discussions/{discussion}/link", json={"issueKey": issue["key"], "runId": stray["id"]}
    )
    assert bad.status_code == 409
    assert (
        client.post(
            f"/api/discussions/{discussion}/link", json={"issueKey": other["key"]}
        ).status_code
        == 409
    )
    linked = client.post(
        f"/api/discussions/{discussion}/link", json={"issueKey": issue["key"], "runId": run["id"]}
    )
    assert linked.status_code == 200
    assert (linked.json()["runId"], linked.json()["executionMode"]) == (
        run["id"],
        "continue_in_cli",
    )


def test_list_and_get(client: TestClient) -> None:
    first = with_plan(client)
    open_(client, "s-2")
    listed = client.get("/api/discussions?status=open").json()["discussions"]
    assert {d["id"] for d in listed} >= {first}
    assert all("turns" not in d for d in listed)
    found = client.get(f"/api/discussions/{first}").json()
    assert found["plan"] == {
        "content": PLAN,
        "source": "claude-jsonl",
        "sourceKey": "p1",
        "role": "plan",
    }
    missing = client.get("/api/discussions/nope")
    assert missing.status_code == 404 and assert_error_shape(missing.json())["code"] == "not_found"
    assert client.get("/api/discussions?status=sleeping").status_code == 400
