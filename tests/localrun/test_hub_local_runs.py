"""Hub side of local runs: idempotency, sticky status, comment sync, run tokens, sweeper."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from hangar.hub.store.local_runs import now
from hangar.hub.workers import outbox, sweeper


def new_issue(client: TestClient, status: str = "backlog") -> str:
    response = client.post("/api/issues", json={"title": "Fix it", "status": status})
    assert response.status_code == 201, response.text
    return str(response.json()["key"])


def new_run(client: TestClient, key: str, **fields: Any) -> dict[str, Any]:
    body = {"cliName": "codex", "workDir": "/tmp/project", **fields}
    response = client.post(f"/api/issues/{key}/local-runs", json=body)
    assert response.status_code in (200, 201), response.text
    return dict(response.json())


def post(client: TestClient, run_id: str, **message: Any) -> Any:
    return client.post(f"/api/local-runs/{run_id}/messages", json=message)


def drain_outbox(hub_app: FastAPI, later: float = 0.0) -> None:
    ctx = hub_app.state.hub
    outbox.process_batch(ctx.engine, ctx.workspace, at=now() + timedelta(seconds=later))


def test_create_is_idempotent_by_source_key_and_moves_issue(client: TestClient) -> None:
    """LR-002: a run per issue, idempotent by (source, sourceKey); backlog → in_progress."""
    key = new_issue(client)
    first = client.post(
        f"/api/issues/{key}/local-runs", json={"cliName": "codex", "sourceKey": "k1"}
    )
    again = client.post(
        f"/api/issues/{key}/local-runs", json={"cliName": "codex", "sourceKey": "k1"}
    )
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"]
    assert first.json()["runToken"] == again.json()["runToken"]
    assert client.get(f"/api/issues/{key}").json()["status"] == "in_progress"
    comments = client.get(f"/api/issues/{key}/comments").json()["comments"]
    assert len(comments) == 1 and "Started local `codex` run" in comments[0]["body"]
    runs = client.get(f"/api/issues/{key}/local-runs").json()["runs"]
    assert [r["id"] for r in runs] == [first.json()["id"]]
    other = new_issue(client)
    clash = client.post(
        f"/api/issues/{other}/local-runs", json={"cliName": "codex", "sourceKey": "k1"}
    )
    assert clash.status_code == 409


def test_message_batch_is_stored_in_order_once(client: TestClient) -> None:
    """LR-159: a batch is stored in order, each message once per (source, sourceKey), in one
    transaction; a batch with an invalid message stores nothing and names the bad one."""
    run = new_run(client, new_issue(client))
    path = f"/api/local-runs/{run['id']}/messages/batch"
    first = [{"type": "text", "source": "s", "sourceKey": f"k{n}", "content": f"m{n}"}
             for n in range(3)]  # fmt: skip
    answer = client.post(path, json={"messages": first})
    assert answer.status_code == 200
    assert answer.json()["results"] == [{"seq": n + 1, "created": True} for n in range(3)]
    again = client.post(path, json={"messages": [first[1], {**first[0], "sourceKey": "k3"}]})
    assert again.json()["results"] == [{"seq": 2, "created": False}, {"seq": 4, "created": True}]
    bad = client.post(path, json={"messages": [{**first[0], "sourceKey": "k9"},
                                               {**first[0], "type": "event"}]})  # fmt: skip
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_request"
    assert bad.json()["error"]["details"]["problems"][0]["field"] == "messages[1].type"
    stored = client.get(f"/api/local-runs/{run['id']}/messages").json()["messages"]
    assert [m["sourceKey"] for m in stored] == ["k0", "k1", "k2", "k3"]


def test_no_status_update_keeps_the_issue_status(client: TestClient) -> None:
    key = new_issue(client, status="todo")
    new_run(client, key, noStatusUpdate=True)
    assert client.get(f"/api/issues/{key}").json()["status"] == "todo"


def test_messages_stored_once_with_per_run_seq(client: TestClient) -> None:
    """LR-159/LR-160: one message per (run, source, sourceKey); 201 new, 200 duplicate."""
    run = new_run(client, new_issue(client))
    a = post(client, run["id"], type="text", source="s", sourceKey="a", content="one")
    b = post(client, run["id"], type="text", source="s", sourceKey="b", content="two")
    dup = post(client, run["id"], type="text", source="s", sourceKey="a", content="changed")
    assert (a.status_code, b.status_code, dup.status_code) == (201, 201, 200)
    assert (a.json()["seq"], b.json()["seq"], dup.json()["seq"]) == (1, 2, 1)
    assert dup.json()["content"] == "one"
    listed = client.get(f"/api/local-runs/{run['id']}/messages?since=1").json()
    assert [m["sourceKey"] for m in listed["messages"]] == ["b"] and listed["nextSince"] == 2
    bad = post(client, run["id"], type="event", source="s", sourceKey="c")
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_request"
    assert bad.json()["error"]["details"]["problems"][0]["field"] == "type"


def test_hub_redacts_again(client: TestClient) -> None:
    run = new_run(client, new_issue(client))
    secret = "glpat-" + "x" * 24
    stored = post(
        client, run["id"], type="tool_result", source="s", sourceKey="r", output=f"t={secret}"
    ).json()
    assert secret not in str(stored)


def test_terminal_status_is_sticky(client: TestClient) -> None:
    """Terminal statuses never change again; later PATCHes are heartbeats only."""
    run = new_run(client, new_issue(client))
    url = f"/api/local-runs/{run['id']}"
    done = client.patch(url, json={"status": "completed", "exitCode": 0, "activeMs": 1200})
    assert done.json()["status"] == "completed"
    later = client.patch(url, json={"status": "failed", "exitCode": 3, "error": "late"})
    assert later.status_code == 200
    assert (later.json()["status"], later.json()["exitCode"], later.json()["error"]) == (
        "completed",
        0,
        None,
    )
    assert client.patch(url, json={"status": "bogus"}).status_code == 400


def test_usage_is_cumulative_per_provider_and_model(client: TestClient) -> None:
    run = new_run(client, new_issue(client))
    url = f"/api/local-runs/{run['id']}/usage"
    client.put(url, json={"usage": [{"provider": "codex", "model": "m", "inputTokens": 5}]})
    body = {"usage": [{"provider": "codex", "model": "m", "inputTokens": 9, "outputTokens": 2}]}
    usage = client.put(url, json=body).json()["usage"]
    assert usage == [
        {
            "provider": "codex",
            "model": "m",
            "inputTokens": 9,
            "outputTokens": 2,
            "cacheReadTokens": 0,
            "cacheWriteTokens": 0,
        }
    ]


def test_comment_sync_rules(client: TestClient, hub_app: FastAPI) -> None:
    """LR-162..LR-168: which messages become threaded comments under the run's top comment."""
    key = new_issue(client)
    run = new_run(client, key)
    rid = run["id"]
    post(client, rid, type="user_input", source="s", sourceKey="u1", content="please fix",
         input={"turnKey": "t1"})  # fmt: skip
    post(client, rid, type="tool_use", source="s", sourceKey="tu", tool="exec_command")
    post(client, rid, type="tool_result", source="s", sourceKey="tr", output="ran ok")
    post(client, rid, type="thinking", source="s", sourceKey="th", content="hmm")
    post(client, rid, type="final", source="s", sourceKey="f1", content="Fixed it.",
         input={"turnKey": "t1"})  # fmt: skip
    # a slash command turn: never a comment, and its reply is not a final comment either
    post(client, rid, type="user_input", source="s", sourceKey="u2", content="/compact",
         input={"turnKey": "t2", "command": True, "slash_command": "compact"})  # fmt: skip
    post(client, rid, type="final", source="s", sourceKey="f2", content="Compacted.",
         input={"turnKey": "t2"})  # fmt: skip
    # slash command with arguments is commentable
    post(client, rid, type="user_input", source="s", sourceKey="u3", content="/review main",
         input={"turnKey": "t3", "command": True, "commentable": True})  # fmt: skip
    # injected issue context is never a comment
    post(client, rid, type="user_input", source="s", sourceKey="u4", content="Issue HGR-1 …",
         input={"turnKey": "t4", "injected": True})  # fmt: skip
    post(client, rid, type="text", source="s", sourceKey="p1", content="Proposed Plan\n\n1. x",
         input={"kind": "codex_proposed_plan"})  # fmt: skip
    drain_outbox(hub_app)
    drain_outbox(hub_app, later=outbox.FINAL_WAIT + 5)  # the t2 final waited, then is skipped
    comments = client.get(f"/api/issues/{key}/comments").json()["comments"]
    top, *replies = comments
    assert all(c["parentId"] == top["id"] for c in replies)
    bodies = [c["body"] for c in replies]
    assert bodies[0] == "please fix"
    assert bodies[1].endswith("Fixed it.") and "-local-codex" in bodies[1]
    assert bodies[2] == "/review main"
    assert bodies[3].endswith("Proposed Plan\n\n1. x")
    assert len(bodies) == 4
    messages = client.get(f"/api/local-runs/{rid}/messages").json()["messages"]
    assert len(messages) == 10  # everything is in the execution log (LR-168)


def test_comments_off_writes_no_replies(client: TestClient, hub_app: FastAPI) -> None:
    key = new_issue(client)
    run = new_run(client, key, commentsMode="off")
    post(client, run["id"], type="user_input", source="s", sourceKey="u", content="hi",
         input={"turnKey": "t"})  # fmt: skip
    drain_outbox(hub_app)
    assert client.get(f"/api/issues/{key}/comments").json()["comments"] == []


def test_run_token_can_only_read_the_issue_and_post_to_its_run(
    client: TestClient, client_for: Any
) -> None:
    """A run-scoped token: read its issue, post to its run; nothing else."""
    key = new_issue(client)
    other_key = new_issue(client)
    run = new_run(client, key)
    other_run = new_run(client, other_key)
    scoped: TestClient = client_for(run["runToken"])
    assert scoped.get(f"/api/issues/{key}").status_code == 200
    assert scoped.get(f"/api/issues/{key}/comments").status_code == 200
    assert (
        post(scoped, run["id"], type="text", source="s", sourceKey="x", content="ok").status_code
        == 201
    )
    assert scoped.get(f"/api/local-runs/{run['id']}/messages").status_code == 200
    assert scoped.get(f"/api/issues/{other_key}").status_code == 401
    assert post(scoped, other_run["id"], type="text", source="s", sourceKey="x").status_code == 401
    assert (
        scoped.patch(f"/api/local-runs/{run['id']}", json={"status": "failed"}).status_code == 401
    )
    assert scoped.post("/api/issues", json={"title": "x"}).status_code == 401
    assert scoped.post(f"/api/issues/{key}/comments", json={"body": "x"}).status_code == 401
    assert scoped.get("/api/issues").status_code == 401
    assert client_for("hgrun_forged").get(f"/api/issues/{key}").status_code == 401


def test_hardening_13_a_retried_create_returns_the_same_run_and_token(
    client: TestClient, client_for: Any
) -> None:
    """A create retried after a lost answer must not cut off the agent holding the token."""
    key = new_issue(client)
    first = new_run(client, key, sourceKey="retried")
    agent: TestClient = client_for(first["runToken"])
    assert post(agent, first["id"], type="text", sourceKey="a", content="one").status_code == 201
    again = new_run(client, key, sourceKey="retried")
    assert (again["id"], again["runToken"]) == (first["id"], first["runToken"])
    assert post(agent, first["id"], type="text", sourceKey="b", content="two").status_code == 201
    other = new_run(client, key, sourceKey="another")
    assert other["runToken"] != first["runToken"]
    assert other["runToken"].startswith("hgrun_") and len(other["runToken"]) >= 32


def test_hardening_13_a_run_token_dies_with_its_run(
    client: TestClient, client_for: Any, hub_app: FastAPI
) -> None:
    key = new_issue(client)
    finished, swept = new_run(client, key), new_run(client, key)
    for run in (finished, swept):
        agent: TestClient = client_for(run["runToken"])
        assert agent.get(f"/api/issues/{key}").status_code == 200
    client.patch(f"/api/local-runs/{finished['id']}", json={"status": "completed"})
    sweeper.sweep(hub_app.state.hub.engine, at=now() + timedelta(seconds=151))
    assert client.get(f"/api/local-runs/{swept['id']}").json()["status"] == "failed"
    for run in (finished, swept):
        agent = client_for(run["runToken"])
        assert agent.get(f"/api/issues/{key}").status_code == 401
        assert agent.get(f"/api/issues/{key}/comments").status_code == 401
        assert agent.get(f"/api/local-runs/{run['id']}/messages").status_code == 401
        late = post(agent, run["id"], type="text", sourceKey="late", content="after the end")
        assert late.status_code == 401
    assert client.get(f"/api/local-runs/{finished['id']}/messages").json()["messages"] == []
    retried = new_run(client, key, sourceKey=None)  # a new run has a token that works
    assert client_for(retried["runToken"]).get(f"/api/issues/{key}").status_code == 200


def test_sweeper_fails_runs_silent_for_150_seconds(client: TestClient, hub_app: FastAPI) -> None:
    """A running run without heartbeat for 150 s is failed; terminal runs are untouched."""
    engine = hub_app.state.hub.engine
    key = new_issue(client)
    silent = new_run(client, key)
    finished = new_run(client, key)
    client.patch(f"/api/local-runs/{finished['id']}", json={"status": "completed"})
    assert sweeper.sweep(engine, at=now() + timedelta(seconds=100)) == []
    assert sweeper.sweep(engine, at=now() + timedelta(seconds=151)) == [silent["id"]]
    swept = client.get(f"/api/local-runs/{silent['id']}").json()
    assert (swept["status"], swept["error"]) == ("failed", sweeper.TIMEOUT_ERROR)
    assert client.get(f"/api/local-runs/{finished['id']}").json()["status"] == "completed"


def test_issue_page_lists_runs_with_a_live_log(
    client: TestClient, browser_client: TestClient
) -> None:
    """The issue page shows its runs; the log is read through the API with the session."""
    key = new_issue(client)
    run = new_run(client, key)
    post(client, run["id"], type="text", source="s", sourceKey="a", content="<b>hi</b>")
    page = browser_client.get(f"/issues/{key}")
    assert page.status_code == 200
    assert f'id="run-{run["id"]}"' in page.text
    assert "/static/local_runs.js" in page.text
    assert browser_client.get("/static/local_runs.js").status_code == 200
    log = browser_client.get(f"/api/local-runs/{run['id']}/messages?since=0")
    assert log.status_code == 200 and log.json()["messages"][0]["content"] == "<b>hi</b>"
