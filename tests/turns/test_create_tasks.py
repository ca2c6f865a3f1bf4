"""Creating tasks from the hub's API with the real agent CLIs in the sandbox (the rules each
test names).

Each project is a real git repository in the sandbox's home that the device reports because
an earlier session of the same agent ran in it; the new task is created through
``POST /api/runtime-work/create`` with a client-generated ``localTaskId``.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar
from hangar.hub.events import turn_relay
from hangar.testing.agent_clis import CLIS
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .conftest import TurnEvents, sandbox_stores
from .test_codex_send import play

pytestmark = pytest.mark.real_agents
TOKEN = "create-test-token-0123456789abcdef0123"


@contextmanager
def serving(
    agent_sandbox: AgentSandbox, turn_events: TurnEvents
) -> Iterator[tuple[TestClient, LocalHangar]]:
    """A hub and its executor over this test's ``$HANGAR_HOME``, the agents in the sandbox."""
    stores = sandbox_stores(agent_sandbox)
    local = LocalHangar.open(
        stores={k: stores[k] for k in ("codex", "claude", "opencode")},
        launcher=agent_sandbox.launcher(),
    )
    relay = turn_relay(local.events)

    def tee(event: str, data: dict[str, Any]) -> None:
        turn_events(event, data)
        relay(event, data)

    try:
        local.executor.attach_events(tee)
        app = local.create_app(TOKEN)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        with TestClient(app, base_url="http://127.0.0.1", headers=headers) as client:
            yield client, local
    finally:
        local.close()


@pytest.fixture
def hub(
    agent_sandbox: AgentSandbox, hangar_home: Path, turn_events: TurnEvents
) -> Iterator[tuple[TestClient, LocalHangar]]:
    with serving(agent_sandbox, turn_events) as opened:
        yield opened


def shop_project(agent_sandbox: AgentSandbox, cli: str) -> Path:
    """``projects/shop``, a git repository with one commit, where ``cli`` ran once."""
    scenario = scenario_from_dict(
        {
            "name": "shop",
            "workspace": {"git": True, "files": {"cart.py": "TOTAL = 0\n"}},
            "turns": [{"text": "Looked at the shop."}],
        }
    )
    run = agent_sandbox.run_agent(cli, scenario, "Look at the shop", cwd="projects/shop")
    assert run.returncode == 0, run.stderr
    return run.cwd


def listed(client: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = client.get("/api/runtime-work").json()
    return body


def project_tasks(client: TestClient, project: Path) -> list[dict[str, Any]]:
    for group in listed(client)["projects"]:
        if group["workspacePath"] == str(project):
            return list(group["tasks"])
    return []


def hub_rows(local: LocalHangar) -> str:
    """Every row of the hub's own database, as SQL text (read-only: the file must exist)."""
    uri = local.executor.settings.paths.hub_db.as_uri() + "?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        dump = "\n".join(conn.iterdump())
    assert "CREATE TABLE alembic_version" in dump  # the migrated hub database itself
    return dump


def git_status(path: Path) -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain"], cwd=path, capture_output=True, text=True, check=True
    )
    return done.stdout


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    device = client.get("/api/runtime-work/projects").json()["devices"][0]
    response = client.post(
        "/api/runtime-work/create", json={"deviceId": device["deviceId"], **body}
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_a_claude_task_in_the_current_workspace_replies_and_lists_under_its_project(
    agent_sandbox: AgentSandbox, hub: tuple[TestClient, LocalHangar], turn_events: TurnEvents
) -> None:
    """RW-259, RW-261, RW-272, RW-277: ``POST /api/runtime-work/create`` reaches the device's
    ``runtime.tasks.create``; the client's localTaskId is the task's id from the first answer on;
    the task lists under its project at once, Claude replies in the project's directory, and
    the session Claude wrote is that same task in the index (its transcript, no second row)."""
    client, _ = hub
    project = shop_project(agent_sandbox, "claude")
    device = client.get("/api/runtime-work/projects").json()["devices"][0]
    assert str(project) in [p["workspacePath"] for p in device["projects"]]
    assert "claude" in device["agents"]
    task_id = uuid.uuid4().hex
    play(agent_sandbox, {"text": "Created and replying from Claude."})
    answer = create(
        client,
        localTaskId=task_id,
        runtime="claude",
        mode="current_workspace",
        workspacePath=str(project),
        text="Plan the checkout page",
        model={"modelId": "sonnet"},
    )
    assert answer["localTaskId"] == task_id and answer["workspacePath"] == str(project)
    assert task_id in [t["localTaskId"] for t in project_tasks(client, project)]
    done = turn_events.wait_type("response.completed")
    assert done["localTaskId"] == task_id
    assert turn_events.text(done["subtaskId"]) == "Created and replying from Claude."
    tasks = [t for t in project_tasks(client, project) if t["runtime"] == "claude"]
    assert sorted(t["title"] for t in tasks) == ["Look at the shop", "Plan the checkout page"]
    created = next(t for t in tasks if t["localTaskId"] == task_id)
    page = client.post(
        "/api/runtime-work/transcript",
        json={"deviceId": created["deviceId"], "localTaskId": task_id, "refresh": True},
    ).json()
    contents = [m["content"] for m in page["messages"]]
    assert contents[-2:] == ["Plan the checkout page", "Created and replying from Claude."]
    home = agent_sandbox.host(agent_sandbox.homes.home)
    written = [p for p in home.rglob("*.jsonl") if "Plan the checkout page" in p.read_text()]
    assert len(written) == 1  # Claude's own file of the new session, in the project
    lines = [json.loads(line) for line in written[0].read_text().splitlines() if line.strip()]
    assert {line["cwd"] for line in lines if "cwd" in line} == {str(project)}


def test_a_codex_task_in_a_new_worktree_replies_there_and_lists_under_the_project(
    agent_sandbox: AgentSandbox, hub: tuple[TestClient, LocalHangar], turn_events: TurnEvents
) -> None:
    """RW-273, RW-278, RW-279, RW-282: git_worktree mode prepares ``<root>/<localTaskId>/shop``
    from the chosen branch; the answer is hangar's localTaskId, the stream (created … completed)
    comes under it, and the thread Codex started there is linked to it (its transcript is the
    task's); the task lists under the repository's project and the user's own checkout is left
    as it was. RW-002, RW-008, RW-019: the hub's database holds neither the task nor its
    transcript."""
    client, local = hub
    project = shop_project(agent_sandbox, "codex")
    agent_sandbox.offer_codex_model()
    before = git_status(project)
    device = client.get("/api/runtime-work/projects").json()["devices"][0]
    shop = next(p for p in device["projects"] if p["workspacePath"] == str(project))
    assert shop["git"] and shop["branches"][0] == "main" == shop["currentBranch"]
    task_id = uuid.uuid4().hex
    play(agent_sandbox, {"text": "Codex replies from the worktree."})
    answer = create(
        client,
        localTaskId=task_id,
        runtime="codex",
        mode="git_worktree",
        branch="main",
        workspacePath=str(project),
        text="Try the new cart in a worktree",
        model={"modelId": "fake-model"},
    )
    worktree = Path(answer["workspacePath"])
    assert answer["localTaskId"] == task_id and answer["worktreeId"] == task_id
    assert worktree == local.executor.settings.paths.home / "worktrees" / task_id / "shop"
    assert (worktree / "cart.py").read_text() == "TOTAL = 0\n"
    done = turn_events.wait_type("response.completed")
    assert done["localTaskId"] == task_id
    assert turn_events.types(done["subtaskId"])[0] == "response.created"
    assert turn_events.text(done["subtaskId"]) == "Codex replies from the worktree."
    central = hub_rows(local)
    assert task_id not in central  # forwarded to the device, never stored centrally
    assert "Codex replies from the worktree." not in central  # nor the transcript
    created = next(t for t in project_tasks(client, project) if t["localTaskId"] == task_id)
    assert created["runtime"] == "codex" and created["workspacePath"] == str(worktree)
    page = client.post(
        "/api/runtime-work/transcript",
        json={"deviceId": created["deviceId"], "localTaskId": task_id, "refresh": True},
    ).json()
    assert [m["content"] for m in page["messages"]][-2:] == [
        "Try the new cart in a worktree",
        "Codex replies from the worktree.",
    ]
    assert git_status(project) == before
    worktrees = client.post("/api/runtime-work/worktrees/list", json={}).json()
    ids = [w["worktreeId"] for d in worktrees["devices"] for g in d["repositories"]
           for w in g["worktrees"]]  # fmt: skip
    assert task_id in ids


def test_create_refuses_what_the_device_does_not_report(
    agent_sandbox: AgentSandbox, hub: tuple[TestClient, LocalHangar], tmp_path: Path
) -> None:
    """RW-290: a directory the device never reported, a taken id, a model the agent does not
    offer and an id that is not one safe name are refused with the reason; nothing is
    registered."""
    client, local = hub
    project = shop_project(agent_sandbox, "claude")
    device = client.get("/api/runtime-work/projects").json()["devices"][0]["deviceId"]
    existing = project_tasks(client, project)[0]["localTaskId"]
    base = {"deviceId": device, "runtime": "claude", "text": "x", "model": {"modelId": "sonnet"}}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fresh = uuid.uuid4().hex
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"localTaskId": fresh, "workspacePath": str(elsewhere)}, 400, "not a project"),
        ({"localTaskId": existing, "workspacePath": str(project)}, 400, "taken"),
        ({"localTaskId": existing, "mode": "git_worktree"}, 400, "taken"),
        ({"localTaskId": fresh, "model": {"modelId": "gpt-9"}}, 400, "does not offer"),
        ({"localTaskId": "../../etc", "workspacePath": str(project)}, 422, "localTaskId"),
    ]
    for extra, status, reason in cases:
        body = {"workspacePath": str(project), **base, **extra}
        response = client.post("/api/runtime-work/create", json=body)
        assert response.status_code == status, (extra, response.text)
        assert reason in response.text, response.text
    assert len(project_tasks(client, project)) == 1
    worktrees = local.executor.settings.paths.home / "worktrees"
    assert not worktrees.exists() or not any(worktrees.iterdir())  # none prepared for a refusal


def test_a_message_to_a_task_whose_worktree_was_removed_restores_it_first(
    agent_sandbox: AgentSandbox, hub: tuple[TestClient, LocalHangar], turn_events: TurnEvents
) -> None:
    """RW-188, RW-203: the worktree of a created Codex task is deleted (snapshot first, the task
    archived); the user unarchives the thread in Codex itself, so nothing restored it; the
    next message brings the worktree back at its path, with the uncommitted edit, before Codex
    replies there."""
    client, local = hub
    project = shop_project(agent_sandbox, "codex")
    agent_sandbox.offer_codex_model()
    task_id = uuid.uuid4().hex
    play(agent_sandbox, {"text": "First reply in the worktree."})
    answer = create(
        client,
        localTaskId=task_id,
        runtime="codex",
        mode="git_worktree",
        workspacePath=str(project),
        text="Start in a worktree",
        model={"modelId": "fake-model"},
    )
    device, worktree = answer["deviceId"], Path(answer["workspacePath"])
    turn_events.wait_type("response.completed")
    (worktree / "cart.py").write_text("TOTAL = 7  # not committed\n")
    deleted = client.post(
        "/api/runtime-work/worktrees/delete", json={"deviceId": device, "worktreeId": task_id}
    )
    assert deleted.status_code == 200, deleted.text
    assert not worktree.exists()
    thread = str(local.executor.index.row(task_id)["session_key"])
    codex = CLIS["codex"].executable()
    done = agent_sandbox.sandbox.run(
        [codex, "unarchive", thread], cwd=agent_sandbox.homes.home, env=agent_sandbox.env("codex")
    )
    assert done.returncode == 0, done.stderr
    assert not worktree.exists()
    play(agent_sandbox, {"text": "Back in the restored worktree."})
    sent = client.post(
        "/api/runtime-work/send",
        json={
            "deviceId": device,
            "localTaskId": task_id,
            "text": "Carry on",
            "model": {"modelId": "fake-model"},
        },
    )
    assert sent.status_code == 200, sent.text
    assert (worktree / "cart.py").read_text() == "TOTAL = 7  # not committed\n"
    done = turn_events.wait_type("response.completed", sent.json()["subtaskId"])
    assert turn_events.text(done["subtaskId"]) == "Back in the restored worktree."


def test_a_blank_project_is_offered_at_once_and_a_conversation_has_no_project(
    agent_sandbox: AgentSandbox,
    hub: tuple[TestClient, LocalHangar],
    turn_events: TurnEvents,
    isolated_home: Path,
) -> None:
    """RW-292..RW-296: a blank project is a new ``~/Documents/<name>``, listed as a project
    and offered for a new task before it has one, with nothing written to the hub's database;
    an existing name is refused and its directory left alone; a task created in it replies
    there; a conversation lists under conversations, in a chat folder of its own."""
    client, local = hub
    device = client.get("/api/runtime-work/projects").json()["devices"][0]["deviceId"]
    made = client.post(
        "/api/runtime-work/projects/create", json={"deviceId": device, "name": "notes-app"}
    )
    assert made.status_code == 200, made.text
    path = isolated_home / "Documents" / "notes-app"
    assert made.json()["workspacePath"] == str(path) and path.is_dir()
    offered = client.get("/api/runtime-work/projects").json()["devices"][0]["projects"]
    assert [p["workspacePath"] for p in offered] == [str(path)]
    shown = [p for p in listed(client)["projects"] if p["workspacePath"] == str(path)]
    assert [(p["name"], p["tasks"]) for p in shown] == [("notes-app", [])]  # no task yet
    assert "notes-app" not in hub_rows(local)  # no hub project, no task record
    (isolated_home / "Documents" / "kept").mkdir()
    (isolated_home / "Documents" / "kept" / "mine.txt").write_text("the user's\n")
    for name in ("notes-app", "kept"):
        again = client.post(
            "/api/runtime-work/projects/create", json={"deviceId": device, "name": name}
        )
        assert again.status_code == 409 and "already exists" in again.text, again.text
    assert (isolated_home / "Documents" / "kept" / "mine.txt").read_text() == "the user's\n"
    assert str(isolated_home / "Documents" / "kept") not in [
        p["workspacePath"]
        for p in client.get("/api/runtime-work/projects").json()["devices"][0]["projects"]
    ]

    play(agent_sandbox, {"text": "Notes app started."}, {"text": "Just chatting."})
    task_id = uuid.uuid4().hex
    create(client, localTaskId=task_id, runtime="claude", mode="current_workspace",
           workspacePath=str(path), text="Start the notes app",
           model={"modelId": "sonnet"})  # fmt: skip
    done = turn_events.wait_type("response.completed")
    assert turn_events.text(done["subtaskId"]) == "Notes app started."
    assert [t["localTaskId"] for t in project_tasks(client, path)] == [task_id]

    chat_id = uuid.uuid4().hex
    answer = create(client, localTaskId=chat_id, runtime="claude", mode="conversation",
                    text="Just a question", model={"modelId": "sonnet"})  # fmt: skip
    chat = Path(answer["workspacePath"])
    assert chat.parent.parent == isolated_home / "Documents" / "Codex" and chat.name == chat_id
    turn_events.wait_for(
        lambda d: d.get("type") == "response.completed" and d.get("localTaskId") == chat_id,
        "the conversation's reply",
    )
    conversations = listed(client)["conversations"]
    assert [c["localTaskId"] for c in conversations] == [chat_id]
    assert (
        turn_events.text(
            next(d for d in turn_events.turn() if d["localTaskId"] == chat_id)["subtaskId"]
        )
        == "Just chatting."
    )


def test_an_opencode_task_is_created_through_its_server(
    agent_sandbox: AgentSandbox, hub: tuple[TestClient, LocalHangar], turn_events: TurnEvents
) -> None:
    """An OpenCode task is created through ``opencode serve`` in the project's directory,
    replies, and its session is the created task."""
    client, _ = hub
    project = shop_project(agent_sandbox, "opencode")
    device = client.get("/api/runtime-work/projects").json()["devices"][0]
    models = client.post(
        "/api/runtime-work/agent-models",
        json={"deviceId": device["deviceId"], "runtime": "opencode"},
    ).json()["models"]
    fake = next(m for m in models if m["id"] == "fake-model")
    task_id = uuid.uuid4().hex
    play(agent_sandbox, {"text": "OpenCode starts a new session."})
    create(client, localTaskId=task_id, runtime="opencode", mode="current_workspace",
           workspacePath=str(project), text="Begin with OpenCode",
           model={"modelId": "fake-model", "modelType": fake["modelType"]})  # fmt: skip
    done = turn_events.wait_type("response.completed")
    assert done["localTaskId"] == task_id
    assert turn_events.text(done["subtaskId"]) == "OpenCode starts a new session."
    tasks = [t for t in project_tasks(client, project) if t["runtime"] == "opencode"]
    assert sorted(t["localTaskId"] == task_id for t in tasks) == [False, True]
    page = client.post(
        "/api/runtime-work/transcript",
        json={"deviceId": device["deviceId"], "localTaskId": task_id, "refresh": True},
    ).json()
    assert [m["content"] for m in page["messages"]][-2:] == [
        "Begin with OpenCode",
        "OpenCode starts a new session.",
    ]


def test_a_created_codex_task_keeps_its_thread_after_a_restart(
    agent_sandbox: AgentSandbox, hangar_home: Path, turn_events: TurnEvents
) -> None:
    """RW-279, RW-281: the localTaskId → thread link is in the device's index: after the hub
    and its executor restart, the task is listed once under the same id, its transcript is
    read again, and a message continues the same thread."""
    with serving(agent_sandbox, turn_events) as (client, local):
        project = shop_project(agent_sandbox, "codex")
        agent_sandbox.offer_codex_model()
        task_id = uuid.uuid4().hex
        play(agent_sandbox, {"text": "Before the restart."})
        answer = create(client, localTaskId=task_id, runtime="codex", mode="current_workspace",
                        workspacePath=str(project), text="Remember this",
                        model={"modelId": "fake-model"})  # fmt: skip
        turn_events.wait_type("response.completed")
        thread = str(local.executor.index.row(task_id)["session_key"])
    with serving(agent_sandbox, turn_events) as (client, local):
        mine = [t for t in project_tasks(client, project) if t["localTaskId"] == task_id]
        assert len(mine) == 1 and len(project_tasks(client, project)) == 2
        assert str(local.executor.index.row(task_id)["session_key"]) == thread
        play(agent_sandbox, {"text": "After the restart, same thread."})
        sent = client.post(
            "/api/runtime-work/send",
            json={"deviceId": answer["deviceId"], "localTaskId": task_id, "text": "Still there?",
                  "model": {"modelId": "fake-model"}},
        )  # fmt: skip
        assert sent.status_code == 200, sent.text
        done = turn_events.wait_type("response.completed", sent.json()["subtaskId"])
        assert turn_events.text(done["subtaskId"]) == "After the restart, same thread."
        page = client.post(
            "/api/runtime-work/transcript",
            json={"deviceId": answer["deviceId"], "localTaskId": task_id, "refresh": True},
        ).json()
        contents = [m["content"] for m in page["messages"]]
        assert contents == [
            "Remember this",
            "Before the restart.",
            "Still there?",
            "After the restart, same thread.",
        ]


def test_a_codex_task_whose_link_was_not_written_is_restored_after_a_restart(
    agent_sandbox: AgentSandbox, hangar_home: Path, turn_events: TurnEvents
) -> None:
    """RW-281: an executor stopped between Codex's ``thread/start`` and writing the link
    leaves the created task without its thread. After the restart the link is restored from
    Codex's ``thread/list`` (the thread that started in that directory with that first
    message after the task was registered) and the index: the task is listed once, under its
    own id, and its transcript is read from the rollout JSONL that ``thread/read`` names. A
    task Codex has no thread for is failed, not left running."""
    with serving(agent_sandbox, turn_events) as (client, local):
        project = shop_project(agent_sandbox, "codex")
        agent_sandbox.offer_codex_model()
        task_id = uuid.uuid4().hex
        play(agent_sandbox, {"text": "Before the restart."})
        create(client, localTaskId=task_id, runtime="codex", mode="current_workspace",
               workspacePath=str(project), text="Remember this",
               model={"modelId": "fake-model"})  # fmt: skip
        turn_events.wait_type("response.completed")
        thread = str(local.executor.index.row(task_id)["session_key"])
        # What the stop leaves: the task registered under the client's id, no thread yet.
        with local.executor.db.write() as conn:
            conn.execute(
                "UPDATE local_tasks SET session_key = 'pending:' || local_task_id,"
                " runtime_handle = '{}', source_path = NULL, stat_signature = NULL,"
                " status = 'running' WHERE local_task_id = ?",
                (task_id,),
            )
        # And one stopped before Codex started any thread for it.
        never = uuid.uuid4().hex
        local.executor.index.register_created(
            never, "codex", str(project), "Never started", "2026-01-01T00:00:00Z"
        )
    with serving(agent_sandbox, turn_events) as (client, local):
        tasks = project_tasks(client, project)
        assert sorted(t["title"] for t in tasks) == [
            "Look at the shop",
            "Never started",
            "Remember this",
        ]
        assert {t["localTaskId"]: t["status"] for t in tasks}[never] == "failed"
        (mine,) = [t for t in tasks if t["title"] == "Remember this"]
        assert mine["localTaskId"] == task_id
        row = local.executor.index.row(task_id)
        assert str(row["session_key"]) == thread
        control = local.executor.control("codex")
        assert control is not None
        server = control.server()  # type: ignore[attr-defined]
        named = server.request("thread/read", {"threadId": thread, "includeTurns": False})
        assert row["source_path"] == named["thread"]["path"]
        page = client.post(
            "/api/runtime-work/transcript",
            json={"deviceId": mine["deviceId"], "localTaskId": task_id, "refresh": True},
        ).json()
        assert [m["content"] for m in page["messages"]] == ["Remember this", "Before the restart."]
