"""Every executor RPC over a real WebSocket: the same typed answers as in process."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hangar.errors import HangarError
from hangar.executor.remote.run import RemoteOptions, build_client
from hangar.executor.service import Executor
from hangar.hub.api import runtime_work as runtime_api
from hangar.hub.devices.ws_link import WebSocketLink
from hangar.protocol import copy as cp
from hangar.protocol import create as cr
from hangar.protocol import file_changes as fc
from hangar.protocol import files as fl
from hangar.protocol import methods as m
from hangar.protocol import run_log as rl
from hangar.protocol import tasks as t
from hangar.protocol import terminal as term
from hangar.protocol import transfer as tr
from hangar.protocol import turns as tu
from hangar.protocol import usage as u
from hangar.protocol import worktrees as w
from hangar.protocol.codec import to_json
from hangar.protocol.methods import METHODS
from hub.sessions import BASE_TIME, ClaudeSession  # tests/hub, a sibling package

from .kit import client_thread, device_env, hub_thread, wait_until

NOT_HERE: dict[str, str] = {}
"""Methods this test does not call, with the reason."""


def _homes(home: Path) -> None:
    first = ClaudeSession(home, "aaaaaaaa-1111-4111-8111-000000000001", "/srv/app")
    first.user("Check the harbor lights").assistant("The harbor lights are fine.")
    second = ClaudeSession(
        home, "bbbbbbbb-2222-4222-8222-000000000002", "/srv/tools", start=BASE_TIME + timedelta(1)
    )
    second.user("List the tools").assistant("Hammer and saw.")


def _plain(value: Any) -> Any:
    return to_json(value)


def test_every_rpc_of_the_method_table_works_remotely(tmp_path: Path) -> None:
    """RW-122: requests cross the WebSocket as the same typed structs the in-process link
    hands over, and each answer decodes into the method's response type; read-only calls
    answer exactly what the executor answers in process, and lifecycle calls change the
    device's own state. A method added to the table without a remote check fails here."""
    root = tmp_path / "laptop"
    env = device_env(root, HANGAR_DEVICE_NAME="laptop")
    _homes(root / "home")
    REPO[:] = [_git_repo(root / "home" / "repo")]
    called: set[str] = set()
    with hub_thread(tmp_path / "hub") as hub:
        token = hub.add_device("laptop")
        executor = Executor.open(env)
        try:
            client = build_client(
                executor, RemoteOptions(hubs=[hub.url], token=token, source_address="127.0.0.2")
            )
            with client_thread(client):
                device_id = executor.device.device_id
                wait_until(lambda: hub.ctx.device_infos(), "the device online")
                link = hub.ctx.devices.link(device_id)
                assert isinstance(link, WebSocketLink)

                def remote(
                    method: str, request: Any, same: bool = False, fails: str | None = None
                ) -> Any:
                    if fails is not None:  # the same error, code and status, both ways
                        with pytest.raises(HangarError) as over_wire:
                            link.call(method, request)
                        with pytest.raises(HangarError) as in_process:
                            executor.call(method, request)
                        assert over_wire.value.code == in_process.value.code == fails
                        assert over_wire.value.http_status == in_process.value.http_status
                        assert str(over_wire.value) == str(in_process.value)
                        called.add(method)
                        return None
                    answer = link.call(method, request)
                    expected = METHODS[method].response
                    assert isinstance(answer, getattr(expected, "__origin__", expected))
                    called.add(method)
                    if same:
                        assert _plain(answer) == _plain(executor.call(method, request)), method
                    return answer

                _every_method(remote)
        finally:
            executor.close()
    assert called == set(METHODS) - set(NOT_HERE)


def test_a_device_without_the_first_look_rpc_answers_with_its_exact_page(tmp_path: Path) -> None:
    """The web UI's first look (``runtime.tasks.glance``) at a device whose executor predates
    it: the hub asks for the exact first page instead, and never fails the open."""
    root = tmp_path / "older"
    env = device_env(root, HANGAR_DEVICE_NAME="older")
    _homes(root / "home")
    with hub_thread(tmp_path / "hub") as hub:
        token = hub.add_device("older")
        executor = Executor.open(env)
        executor.methods = executor.methods - {m.TASKS_GLANCE.name}  # what its hello lists
        try:
            client = build_client(
                executor, RemoteOptions(hubs=[hub.url], token=token, source_address="127.0.0.2")
            )
            with client_thread(client):
                device_id = executor.device.device_id
                wait_until(lambda: hub.ctx.device_infos(), "the device online")
                link = hub.ctx.devices.link(device_id)
                with pytest.raises(HangarError) as refused:
                    link.call(m.TASKS_GLANCE.name, t.GlanceRequest(local_task_id="x"))
                assert refused.value.code == "not_supported"
                (task,) = [x for x in executor.list_tasks() if x.title == "List the tools"]
                body = runtime_api.DeviceTranscriptRequest(
                    device_id=device_id, local_task_id=task.local_task_id
                )
                look = runtime_api.first_look(body, hub.ctx)
                assert look == runtime_api.transcript(body, hub.ctx)
                assert [msg["content"] for msg in look["messages"]] == [
                    "List the tools",
                    "Hammer and saw.",
                ]
        finally:
            executor.close()


def _worktrees(remote: Callable[..., Any]) -> None:
    repo = REPO[0]
    remote(m.WORKTREES_SETTINGS_GET.name, t.NoArguments(), same=True)
    remote(m.WORKTREES_SETTINGS_UPDATE.name, w.WorktreeSettingsUpdate(keep_count=5))
    prepared = remote(
        m.WORKTREES_PREPARE.name, w.PrepareWorktree(source_path=str(repo), worktree_id="wt1")
    )
    assert Path(prepared["path"]).is_dir()
    listed = remote(m.WORKTREES_LIST.name, t.NoArguments(), same=True)
    assert "wt1" in json.dumps(listed)
    remote(m.WORKTREES_DELETE.name, w.WorktreeRef(worktree_id="wt1"))
    assert not Path(prepared["path"]).exists()
    remote(m.WORKTREES_RESTORE.name, w.WorktreeRef(worktree_id="wt1"))
    assert Path(prepared["path"]).is_dir()
    remote(m.WORKTREES_PRUNE.name, t.NoArguments())


REPO: list[Path] = []


def _git_repo(path: Path) -> Path:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(path.parent),
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    path.mkdir(parents=True)
    (path / "README.md").write_text("hello\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "first"]):
        subprocess.run(["git", *args], cwd=path, env=env, check=True)
    return path


def _turns(remote: Callable[..., Any]) -> None:
    """The turn RPCs' typed requests and errors over the wire, without starting an agent (a
    real remote turn runs in ``test_remote_turns``)."""
    gone = "no-such-task"
    remote(m.TASKS_SEND.name, tu.SendRequest(local_task_id=gone, text="hi"), fails="not_found")
    remote(m.TASKS_CANCEL.name, t.TaskRef(local_task_id=gone), fails="not_found")
    guidance = tu.GuidanceRequest(local_task_id=gone, text="left", client_guidance_id="g1")
    remote(m.TASKS_GUIDANCE.name, guidance, fails="not_found")
    remote(m.TASKS_COMPACT.name, t.TaskRef(local_task_id=gone), fails="not_found")
    remote(m.TASKS_GOAL_GET.name, t.TaskRef(local_task_id=gone), fails="not_found")
    remote(m.TASKS_MODELS.name, t.TaskRef(local_task_id=gone), fails="not_found")
    remote(m.TASKS_ACTIVITY.name, tu.ActivityRequest(), same=True)
    answer = tu.ApprovalAnswer(local_task_id=gone, approval_id="a1", decision="deny")
    remote(m.TASKS_APPROVAL_ANSWER.name, answer, fails="not_found")
    updated = remote(m.AGENTS_CONFIG_UPDATE.name, tu.AgentConfigUpdate(runtime="codex"))
    assert updated.runtime == "codex" and updated.environment == []


def _creating(remote: Callable[..., Any]) -> None:
    """Creating a task and a blank project; a real created task replying over a device's
    WebSocket is in ``test_remote_create``."""
    listed = remote(m.PROJECTS_LIST.name, cr.ProjectsRequest(), same=True)
    assert "/srv/app" not in [p.workspace_path for p in listed.projects]  # not on this disk
    made = remote(m.PROJECTS_CREATE.name, cr.CreateProject(name="notes"))
    BLANK[:] = [Path(made.workspace_path)]
    assert BLANK[0].is_dir() and BLANK[0].name == "notes"
    again = cr.CreateProject(name="notes")
    remote(m.PROJECTS_CREATE.name, again, fails="conflict")
    listed = remote(m.PROJECTS_LIST.name, cr.ProjectsRequest(), same=True)
    assert made.workspace_path in [p.workspace_path for p in listed.projects]
    models = cr.AgentModelsRequest(runtime="claude")  # no CLI on this device
    remote(m.AGENTS_MODELS.name, models, fails="agent_unavailable")
    elsewhere = cr.CreateTask(
        local_task_id="c0ffee00c0ffee00c0ffee00c0ffee00",
        runtime="claude",
        text="hello",
        workspace_path="/srv/not-reported",
    )
    remote(m.TASKS_CREATE.name, elsewhere, fails="bad_request")


BLANK: list[Path] = []


def _workspace_tools(remote: Callable[..., Any]) -> None:
    """The file view and a terminal in the blank project; the terminal's streamed output
    reaching a page through the hub is in ``test_remote_terminal``."""
    blank = str(BLANK[0])
    (BLANK[0] / "plan.txt").write_text("step one\n")
    ref = fl.WorkspaceRef(workspace_path=blank)
    listing = remote(m.FILES_LIST.name, fl.FilesRequest(workspace_path=blank), same=True)
    assert [e.name for e in listing.entries] == ["plan.txt"]
    read = remote(m.FILES_READ.name, fl.FilesRequest(workspace_path=blank, path="plan.txt"))
    assert read.text == "step one\n"
    assert remote(m.FILES_STATUS.name, ref, same=True).repository is False
    opened = remote(m.TERMINAL_OPEN.name, term.OpenTerminal(workspace_path=blank))
    assert opened.cwd == blank and opened.running
    terminal = opened.terminal_id
    typed = term.TerminalInput(terminal_id=terminal, data="echo remote-$((6*7))\r")
    remote(m.TERMINAL_INPUT.name, typed)
    replay = term.TerminalReplay(terminal_id=terminal)
    wait_until(lambda: b"remote-42" in remote(m.TERMINAL_REPLAY.name, replay).data, "output")
    remote(m.TERMINAL_RESIZE.name, term.TerminalResize(terminal_id=terminal, cols=90, rows=20))
    hold = term.TerminalFlow(terminal_id=terminal, holder="page-1", paused=True)
    remote(m.TERMINAL_FLOW.name, hold)
    listed = remote(m.TERMINAL_LIST.name, t.NoArguments())
    assert [(i.terminal_id, i.cols, i.rows) for i in listed.terminals] == [(terminal, 90, 20)]
    ref_terminal = term.TerminalRef(terminal_id=terminal)
    assert remote(m.TERMINAL_CLOSE.name, ref_terminal).closed
    assert remote(m.TERMINAL_LIST.name, t.NoArguments(), same=True).terminals == []
    gone = term.TerminalInput(terminal_id=terminal, data="x")
    remote(m.TERMINAL_INPUT.name, gone, fails="terminal_not_found")


def _every_method(remote: Callable[..., Any]) -> None:
    listed = remote(m.TASKS_LIST.name, t.ListTasks(), same=True)
    by_title = {task.title: task.local_task_id for task in listed.tasks}
    first, second = by_title["Check the harbor lights"], by_title["List the tools"]
    page = remote(m.TASKS_TRANSCRIPT.name, t.TranscriptRequest(local_task_id=first), same=True)
    assert [msg.content for msg in page.messages][-1] == "The harbor lights are fine."
    look = remote(m.TASKS_GLANCE.name, t.GlanceRequest(local_task_id=first), same=True)
    assert look.settled and _plain(look.messages) == _plain(page.messages)  # a file it read
    mapped = remote(
        m.TASKS_RUN_MESSAGES.name, rl.RunMessagesRequest(local_task_id=first), same=True
    )
    assert mapped.local_task_id == first and mapped.messages
    found = remote(m.TASKS_SEARCH.name, t.SearchRequest(query="harbor"), same=True)
    assert [hit.local_task_id for hit in found.results] == [first]
    remote(m.INDEX_RUN.name, t.NoArguments())
    remote(m.INDEX_STATUS.name, t.NoArguments(), same=True)
    remote(m.USAGE_SUMMARY.name, u.UsageRequest(by="task"), same=True)
    turn = page.messages[-1].turn_id
    copy = cp.CopyTask(local_task_id=first, last_turn_id=turn, new_local_task_id="copy-0123456789")
    remote(m.TASKS_COPY.name, copy, fails="bad_request")  # Claude forks only in /srv/app: gone
    facts = remote(m.TRANSFER_SOURCE.name, tr.SourceRequest(local_task_id=first), same=True)
    assert facts.git is False and facts.project_dir == "app"
    check = tr.CheckTarget(workspace_path="/srv/nowhere", remote_url="file:///x", commits=[])
    remote(m.TRANSFER_CHECK.name, check, fails="bad_request")  # not a project it reports
    export = tr.ExportRequest(
        local_task_id=first, last_turn_id=turn, transfer_id="transfer-0123", base="0" * 40
    )
    remote(m.TRANSFER_EXPORT.name, export, fails="not_supported")
    tampered = tr.ImportRequest(
        transfer_id="transfer-0123", workspace_path="/srv/app",
        new_local_task_id="copy-0123456789", data=b"not the package", sha256="0" * 64,
    )  # fmt: skip
    remote(m.TRANSFER_IMPORT.name, tampered, fails="bad_package")
    offer = tr.OfferRequest(
        local_task_id=first, last_turn_id=turn, transfer_id="transfer-0123", token="t" * 32
    )
    remote(m.TRANSFER_OFFER.name, offer, fails="bad_request")  # its directory is not there
    upload = tr.UploadRequest(transfer_id="transfer-0123", url="http://127.0.0.1:9/x")
    remote(m.TRANSFER_UPLOAD.name, upload, fails="bad_request")  # nothing offered
    fetch = tr.FetchRequest(
        transfer_id="transfer-0123", workspace_path="/srv/nowhere",
        new_local_task_id="copy-0123456789", sha256="0" * 64, size=0,
    )  # fmt: skip
    remote(m.TRANSFER_FETCH.name, fetch, fails="bad_request")  # not a project it reports
    withdrawn = remote(m.TRANSFER_WITHDRAW.name, tr.WithdrawRequest(transfer_id="transfer-0123"))
    assert withdrawn.transfer_id == "transfer-0123"

    renamed = remote(m.TASKS_RENAME.name, t.RenameRequest(local_task_id=first, title="Lights"))
    assert renamed.title == "Lights"
    assert remote(m.TASKS_ARCHIVE.name, t.TaskRef(local_task_id=second)).archived
    archived = remote(m.TASKS_ARCHIVED_LIST.name, t.ArchivedListRequest(), same=True)
    assert [i["localTaskId"] for i in archived["items"]] == [second]
    ids = t.TaskIdsRequest(local_task_ids=[second])
    remote(m.TASKS_CLEANUP_PREVIEW.name, ids, same=True)
    remote(m.TASKS_CLEANUP.name, ids)
    assert not remote(m.TASKS_UNARCHIVE.name, t.TaskRef(local_task_id=second)).archived
    project = remote(
        m.TASKS_ARCHIVE_PROJECT.name, t.ArchiveProjectRequest(project_key="/srv/tools")
    )
    assert project.archived == [second]
    remote(m.TASKS_ARCHIVE_ALL.name, t.NoArguments())
    accepted = remote(m.TASKS_DELETE.name, t.TaskRef(local_task_id=second))
    assert accepted.deleted
    progress = t.DeleteProgressRequest(batch_id=accepted.batch_id)
    wait_until(
        lambda: (p := remote(m.TASKS_DELETE_PROGRESS.name, progress)).done == p.total,
        "the delete",
    )
    restored = remote(m.TASKS_RESTORE.name, t.TaskRef(local_task_id=second))
    assert restored.restored
    bulk = remote(m.TASKS_DELETE_BULK.name, t.DeleteBulkRequest(local_task_ids=[second]))
    assert bulk.deleted
    batch = t.DeleteProgressRequest(batch_id=bulk.batch_id)
    wait_until(
        lambda: (p := remote(m.TASKS_DELETE_PROGRESS.name, batch)).done == p.total, "the delete"
    )
    remote(m.TASKS_PURGE.name, t.TaskRef(local_task_id=second))
    _worktrees(remote)
    _turns(remote)
    _creating(remote)
    _workspace_tools(remote)
    changes = fc.TurnFileChanges(
        local_task_id=first, workspace_path="/srv/app", artifact_id="not-an-artifact"
    )
    remote(m.TURN_FILE_CHANGES_REVIEW.name, changes, fails="bad_artifact_id")
    revert = fc.RevertTurnFileChanges(
        local_task_id=first, workspace_path="/srv/app", artifact_id="x", checksum="y"
    )
    remote(m.TURN_FILE_CHANGES_REVERT.name, revert, fails="bad_artifact_id")
    everything = remote(m.TASKS_LIST.name, t.ListTasks(include_archived=True), same=True)
    assert [task.title for task in everything.tasks] == ["Lights"]
    assert msgspec.json.encode(t.ListTasks()) == b"{}"
