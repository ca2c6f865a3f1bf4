"""Copying a task to another device as a git fork (RW-306..312, RW-318): two executors with
their own homes, connecting from 127.0.0.2 and 127.0.0.3, each with its own sandbox (its own
agent home and fake model), a real Codex 0.171 session, real git repositories cloned from one
bare remote, and a real hub — everything through the hub's HTTP API and SSE stream."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .kit import ThreadHub, hub_thread, sandbox_device, sse
from .test_remote_turns import SLOW, turn_event

pytestmark = pytest.mark.real_agents
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Demo User",
    "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo User",
    "GIT_COMMITTER_EMAIL": "demo@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
BINARY = b"\x00\x01line one\r\nline two\r\n\xff\xfe"


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return done.stdout.decode()


def bare_remote(root: Path) -> Path:
    """``shop.git`` with one commit: ``cart.py``, ``data.bin`` and a ``.gitignore``."""
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "-c", "init.defaultBranch=main", "init", "-q")
    (seed / "cart.py").write_text("TOTAL = 0\n")
    (seed / "data.bin").write_bytes(b"\x00original\n")
    (seed / ".gitignore").write_text("*.log\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "Initial commit")
    remote = root / "shop.git"
    git(root, "clone", "-q", "--bare", str(seed), str(remote))
    return remote


def play(box: AgentSandbox, *turns: dict[str, Any]) -> None:
    box.sandbox.load(scenario_from_dict({"name": "copy", "turns": list(turns)}))


def clone_with_a_session(box: AgentSandbox, remote: Path, prompt: str) -> Path:
    """A clone of ``remote`` at ``projects/shop`` in ``box``'s home where Codex ran once."""
    project = box.host(box.homes.home) / "projects" / "shop"
    project.parent.mkdir(parents=True, exist_ok=True)
    git(project.parent, "clone", "-q", str(remote), "shop")
    scenario = scenario_from_dict({"name": "shop", "turns": [{"text": "Looked at the shop."}]})
    run = box.run_agent("codex", scenario, prompt, cwd="projects/shop")
    assert run.returncode == 0, run.stderr
    box.offer_codex_model()
    return project


def send(http: httpx.Client, events: list[dict[str, Any]], address: dict[str, str], text: str,
         wait: bool = True) -> str:  # fmt: skip
    sent = http.post(
        "/api/runtime-work/send",
        json={**address, "text": text, "model": {"modelId": "fake-model"}},
    )
    assert sent.status_code == 200, sent.text
    subtask: str = sent.json()["subtaskId"]
    if wait:
        turn_event(events, "response.completed", subtask)
    return subtask


def transcript(http: httpx.Client, address: dict[str, str]) -> list[dict[str, Any]]:
    page = http.post("/api/runtime-work/transcript", json={**address, "limit": 100})
    assert page.status_code == 200, page.text
    return list(page.json()["messages"])


def bind(http: httpx.Client, address: dict[str, str], device_id: str, path: Path) -> None:
    """Bind ``path`` of ``device_id`` to the task's Project, as the copy picker does first."""
    prepared = http.post(
        "/api/runtime-work/device-workspaces/prepare",
        json={**address, "targetDeviceId": device_id, "label": "workspace",
              "workspacePath": str(path)},
    )  # fmt: skip
    assert prepared.status_code == 200, prepared.text


@contextmanager
def two_devices(
    agent_sandbox: AgentSandbox, tmp_path: Path, hub_env: dict[str, str] | None = None,
    **laptop: str,
) -> Iterator[tuple[ThreadHub, AgentSandbox, Any, Any]]:  # fmt: skip
    """A hub; the laptop (127.0.0.2, ``agent_sandbox``) and the desk (127.0.0.3, a sandbox
    of its own); ``laptop`` passes ``transfer_host``/``transfer_bind`` to the laptop."""
    with (
        AgentSandbox(tmp_path / "sandbox-desk") as desk_box,
        hub_thread(tmp_path / "hub", **(hub_env or {})) as hub,
        sandbox_device(
            agent_sandbox, tmp_path / "laptop", hub, "127.0.0.2", ("codex",),
            hub.add_device("laptop"), name="laptop", **laptop,
        ) as source_device,
        sandbox_device(
            desk_box, tmp_path / "desk", hub, "127.0.0.3", ("codex",),
            hub.add_device("desk"), name="desk",
        ) as desk,
    ):  # fmt: skip
        yield hub, desk_box, source_device, desk


def test_a_git_fork_to_another_device_ends_at_the_turn_and_carries_the_changes(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """RW-306, RW-307, RW-308, RW-310, RW-311, RW-312, RW-318: copied at the middle turn while
    the source streams a later turn, the copy is a task of the other device (its deviceId, a
    new localTaskId) in a detached worktree ``worktrees/<transferId>/shop`` there — never the
    target's main checkout, which stays as it was; the worktree holds the source's local
    commit, its uncommitted tracked changes byte for byte, its non-ignored untracked file and
    not its ignored one; the package holds no repository; the copy's transcript ends at the
    chosen turn and it continues on the other device with that history only; the source's
    running turn finishes untouched."""
    remote = bare_remote(tmp_path / "git")
    source_repo = clone_with_a_session(agent_sandbox, remote, "Look at the shop")
    with two_devices(agent_sandbox, tmp_path) as (hub, desk_box, laptop, desk):
        target_repo = clone_with_a_session(desk_box, remote, "Desk looks at the shop")
        target_status = git(target_repo, "status", "--porcelain")
        laptop_id, desk_id = laptop.device.device_id, desk.device.device_id
        with sse(hub.url, hub.token) as events, hub.client(timeout=SLOW) as http:
            view = http.get("/api/runtime-work").json()
            tasks = [t for p in view["projects"] for t in p["tasks"]]
            (source,) = [t for t in tasks if t["deviceId"] == laptop_id]
            address = {"deviceId": laptop_id, "localTaskId": source["localTaskId"]}
            play(agent_sandbox, {"text": "Second answer."}, {"text": "Third answer."})
            middle = send(http, events, address, "Second question")
            send(http, events, address, "Third question")

            # The source's work: a local commit, uncommitted tracked changes, untracked files.
            (source_repo / "cart.py").write_text("TOTAL = 1\n")
            git(source_repo, "commit", "-q", "-am", "Local commit")
            (source_repo / "cart.py").write_text("TOTAL = 2  # uncommitted\n")
            (source_repo / "data.bin").write_bytes(BINARY)
            (source_repo / "notes").mkdir()
            (source_repo / "notes" / "todo.md").write_text("- ship it\n")
            (source_repo / "debug.log").write_text("ignored\n")

            play(agent_sandbox, {"text": "A slow fourth answer, still streaming.", "delay": 4})
            running = send(http, events, address, "Fourth question", wait=False)
            turn_event(events, "response.output_text.delta", running)
            bind(http, address, desk_id, target_repo)
            new_id = uuid.uuid4().hex
            answer = http.post(
                "/api/runtime-work/copy",
                json={
                    **address,
                    "lastTurnId": middle,
                    "newLocalTaskId": new_id,
                    "targetDeviceId": desk_id,
                    "targetWorkspacePath": str(target_repo),
                },
            )
            assert answer.status_code == 200, answer.text
            copied = answer.json()
            assert (copied["deviceId"], copied["localTaskId"]) == (desk_id, new_id)
            assert copied["method"] == "git_fork" and copied["sourceDeviceId"] == laptop_id
            members = copied["package"]["members"]
            assert not [m for m in members if ".git/" in m or m.startswith(".git")]
            assert "git/commits.bundle" in members and "untracked/notes/todo.md" in members
            assert "untracked/debug.log" not in members
            assert copied["package"]["bytes"] < 64 * 1024

            worktree = Path(copied["workspacePath"])
            assert (
                worktree == desk.settings.paths.home / "worktrees" / copied["transferId"] / "shop"
            )
            assert (worktree / "cart.py").read_bytes() == (source_repo / "cart.py").read_bytes()
            assert (worktree / "data.bin").read_bytes() == BINARY
            assert (worktree / "notes" / "todo.md").read_text() == "- ship it\n"
            assert not (worktree / "debug.log").exists()
            assert git(worktree, "log", "-1", "--format=%s") == "Local commit\n"
            assert git(worktree, "rev-parse", "HEAD") == git(source_repo, "rev-parse", "HEAD")
            detached = subprocess.run(["git", "symbolic-ref", "-q", "HEAD"], cwd=worktree)
            assert detached.returncode == 1  # a detached worktree (RW-307)
            assert git(target_repo, "status", "--porcelain") == target_status  # RW-308

            copy_address = {"deviceId": desk_id, "localTaskId": new_id}
            copy_messages = [(m["role"], m["content"]) for m in transcript(http, copy_address)]
            assert copy_messages == [
                ("user", "Look at the shop"),
                ("assistant", "Looked at the shop."),
                ("user", "Second question"),
                ("assistant", "Second answer."),
            ]
            listed = http.get("/api/runtime-work").json()
            desk_tasks = [
                t for p in listed["projects"] for t in p["tasks"] if t["deviceId"] == desk_id
            ]
            assert new_id in [t["localTaskId"] for t in desk_tasks]  # listed, under a project
            group = next(
                p for p in listed["projects"]
                if new_id in [t["localTaskId"] for t in p["tasks"]]
            )  # fmt: skip
            assert group["workspacePath"] == str(target_repo)  # RW-309: folded into the project

            # The source's running turn ends untouched (RW-300).
            turn_event(events, "response.completed", running)
            assert [m["content"] for m in transcript(http, address)][-2:] == [
                "Fourth question",
                "A slow fourth answer, still streaming.",
            ]

            # The copy continues on the desk with the history through the chosen turn.
            play(desk_box, {"text": "Continued on the desk."})
            send(http, events, copy_address, "Go on at the desk")
            asked = [r for r in desk_box.sandbox.requests() if r["kind"] == "turn"][-1]
            body = str(asked["body"])
            assert "Second question" in body and "Third question" not in body
            assert transcript(http, copy_address)[-1]["content"] == "Continued on the desk."


def test_a_target_with_another_remote_gets_an_archive_copy_not_a_git_fork(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """RW-306, RW-313: the target's clone has another remote, so the git conditions fail and
    the copy goes as an archive (the reason named), never as a worktree of the target's
    repository."""
    remote = bare_remote(tmp_path / "git")
    clone_with_a_session(agent_sandbox, remote, "Look at the shop")
    other_remote = bare_remote(tmp_path / "other-git")
    with two_devices(agent_sandbox, tmp_path) as (hub, desk_box, laptop, desk):
        target_repo = clone_with_a_session(desk_box, other_remote, "Desk looks at the shop")
        with hub.client(timeout=SLOW) as http:
            view = http.get("/api/runtime-work").json()
            tasks = [t for p in view["projects"] for t in p["tasks"]]
            (source,) = [t for t in tasks if t["deviceId"] == laptop.device.device_id]
            address = {"deviceId": source["deviceId"], "localTaskId": source["localTaskId"]}
            (first_turn,) = {m["turnId"] for m in transcript(http, address)}
            before = len(tasks)
            bind(http, address, desk.device.device_id, target_repo)
            answer = http.post(
                "/api/runtime-work/copy",
                json={
                    **address,
                    "lastTurnId": first_turn,
                    "newLocalTaskId": uuid.uuid4().hex,
                    "targetDeviceId": desk.device.device_id,
                    "targetWorkspacePath": str(target_repo),
                },
            )
            assert answer.status_code == 200, answer.text
            copied = answer.json()
            assert copied["method"] == "archive" and str(other_remote) in copied["reason"]
            assert not (desk.settings.paths.home / "worktrees").exists()
            after = http.get("/api/runtime-work").json()
            assert len([t for p in after["projects"] for t in p["tasks"]]) == before + 1
