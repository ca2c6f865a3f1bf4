"""The executor's LocalTask index and RPC surface on real homes, files and SQLite."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hangar.cli.main import cli
from hangar.errors import HangarError, NotFoundError
from hangar.executor.service import Executor
from hangar.executor.workspaces import classify

from .helpers import line
from .test_transcript_engine import codex_turn

THREAD = "019e1625-789d-76c0-80ab-3724b5ddb799"


def write_rollout(home: Path, thread: str = THREAD, cwd: str = "/tmp/proj", turns: int = 2) -> Path:
    folder = home / ".codex" / "sessions" / "2026" / "05" / "11"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-05-11T11-26-55-{thread}.jsonl"
    meta = line({"timestamp": "2026-05-11T08:00:00Z", "type": "session_meta",
                 "payload": {"id": thread, "cwd": cwd, "cli_version": "0.171.0"}})  # fmt: skip
    path.write_bytes(meta + b"".join(codex_turn(n) for n in range(1, turns + 1)))
    return path


def write_claude(home: Path, session: str = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7") -> Path:
    folder = home / ".claude" / "projects" / "-tmp-proj"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    base = {"sessionId": session, "cwd": "/tmp/proj", "isSidechain": False}
    path.write_bytes(
        line({**base, "type": "user", "uuid": "u1", "timestamp": "2026-05-01T00:00:00Z",
              "message": {"role": "user", "content": "Fix the bug"}})
        + line({**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-05-01T00:00:01Z",
                "message": {"id": "m1", "role": "assistant", "model": "claude-x",
                            "content": [{"type": "text", "text": "Done."}]}})
    )  # fmt: skip
    return path


@pytest.fixture
def executor(isolated_home: Path) -> Executor:
    return Executor.open()


def test_list_and_transcript_rpc(isolated_home: Path, executor: Executor) -> None:
    """RW-020, RW-021, RW-029, RW-064..066: list and open through Executor.handle."""
    write_rollout(isolated_home)
    write_claude(isolated_home)
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    assert {t["runtime"] for t in tasks} == {"codex", "claude"}
    codex = next(t for t in tasks if t["runtime"] == "codex")
    assert codex["runtimeHandle"] == {"threadId": THREAD}
    assert codex["localTaskId"] != THREAD and codex["title"] == "request 1"
    assert codex["workspaceKind"] == "workspace"
    assert (codex["workspacePath"], codex["updatedAt"]) == ("/tmp/proj", "2026-01-01T00:00:02Z")
    page = executor.handle(
        "runtime.tasks.transcript", {"localTaskId": codex["localTaskId"], "limit": 3}
    )
    assert page["task"]["messageCount"] == 4 and page["totalMessages"] == 4
    assert [m["index"] for m in page["messages"]] == [1, 2, 3]
    assert page["hasMore"] is True
    older = executor.handle(
        "runtime.tasks.transcript",
        {"localTaskId": codex["localTaskId"], "limit": 3, "beforeCursor": page["beforeCursor"]},
    )
    assert [m["index"] for m in older["messages"]] == [0] and older["hasMore"] is False
    claude = next(t for t in tasks if t["runtime"] == "claude")  # found in the index by its id
    opened = executor.handle("runtime.tasks.transcript", {"localTaskId": claude["localTaskId"]})
    assert [m["content"] for m in opened["messages"]] == ["Fix the bug", "Done."]


_OPENED: list[str] = []
_WATCHING: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    # The interpreter's own audit events: every file open in this process is reported.
    path = args[0] if event == "open" and _WATCHING else None
    if isinstance(path, str | Path) and str(path).startswith(_WATCHING[0]):
        _OPENED.append(str(path))


def _watch_opens(root: Path) -> None:
    """Record opens under ``root`` (audit hooks cannot be removed: installed once)."""
    if not _WATCHING and not getattr(_audit, "installed", False):
        sys.addaudithook(_audit)
        _audit.installed = True  # type: ignore[attr-defined]
    _WATCHING[:] = [str(root)]
    _OPENED.clear()


def test_ids_are_stable_and_relist_reads_nothing(isolated_home: Path, executor: Executor) -> None:
    """RW-011, RW-018, RW-069: ids survive a restart; an unchanged re-list opens no
    transcript (counted with the interpreter's audit hook on `open`)."""
    write_rollout(isolated_home)
    write_claude(isolated_home)
    _watch_opens(isolated_home)
    try:
        first = {
            (t["deviceId"], t["localTaskId"])
            for t in executor.handle("runtime.tasks.list", {})["tasks"]
        }
        assert any(p.endswith(".jsonl") for p in _OPENED)
        assert executor.index.last_refresh.described == 2
        _OPENED.clear()
        executor.handle("runtime.tasks.list", {})
        assert [p for p in _OPENED if p.endswith(".jsonl")] == []
    finally:
        _WATCHING.clear()
    assert executor.index.last_refresh.described == 0
    assert executor.index.last_refresh.unchanged == 2
    assert executor.engine.stats.bytes_read == 0
    again = Executor.open()
    relisted = again.handle("runtime.tasks.list", {})["tasks"]
    assert {(t["deviceId"], t["localTaskId"]) for t in relisted} == first


def test_a_session_id_is_never_taken_for_a_local_task_id(
    isolated_home: Path, executor: Executor
) -> None:
    """RW-022: the thread id of an indexed Codex session, given as a localTaskId, opens
    nothing: it is not found, never read as that session."""
    write_rollout(isolated_home)
    (task,) = executor.handle("runtime.tasks.list", {})["tasks"]
    assert task["localTaskId"] != THREAD
    with pytest.raises(NotFoundError, match="task not found"):
        executor.handle("runtime.tasks.transcript", {"localTaskId": THREAD})


def test_reading_never_moves_updated_at(isolated_home: Path, executor: Executor) -> None:
    """RW-032..034: opening a task keeps updatedAt and the list order."""
    write_rollout(isolated_home)
    newer = "019e1625-789d-76c0-80ab-3724b5ddb7aa"
    write_rollout(isolated_home, thread=newer, turns=3)
    listed = executor.handle("runtime.tasks.list", {})["tasks"]
    assert [t["runtimeHandle"]["threadId"] for t in listed] == [newer, THREAD]
    task = listed[1]  # the older one: opening it must not bring it to the top
    executor.handle("runtime.tasks.transcript", {"localTaskId": task["localTaskId"]})
    executor.handle(
        "runtime.tasks.transcript", {"localTaskId": task["localTaskId"], "refresh": False}
    )
    again = executor.handle("runtime.tasks.list", {})["tasks"]
    assert [t["localTaskId"] for t in again] == [t["localTaskId"] for t in listed]
    after = again[1]
    assert after["updatedAt"] == task["updatedAt"] == "2026-01-01T00:00:02Z"


def test_deleted_file_reports_missing(isolated_home: Path, executor: Executor) -> None:
    """A deleted transcript: the task is reported missing, nothing crashes."""
    path = write_rollout(isolated_home)
    task = executor.handle("runtime.tasks.list", {})["tasks"][0]
    executor.handle("runtime.tasks.transcript", {"localTaskId": task["localTaskId"]})
    path.unlink()
    page = executor.handle("runtime.tasks.transcript", {"localTaskId": task["localTaskId"]})
    assert page["task"]["status"] == "missing" and page["messages"] == []
    listed = executor.handle("runtime.tasks.list", {})["tasks"]
    assert listed[0]["status"] == "missing"


def test_unreadable_file_is_a_clear_error(isolated_home: Path, executor: Executor) -> None:
    """DESIGN §6: a transcript that cannot be read is a HangarError naming the file."""
    path = write_rollout(isolated_home)
    task = executor.handle("runtime.tasks.list", {})["tasks"][0]
    path.unlink()
    path.mkdir()  # same name, now a directory: open() fails with IsADirectoryError
    with pytest.raises(HangarError) as error:
        executor.handle("runtime.tasks.transcript", {"localTaskId": task["localTaskId"]})
    assert error.value.code == "corrupt_file" and str(path) in str(error.value)


def test_thread_names_and_archived(isolated_home: Path, executor: Executor) -> None:
    """Codex's session_index.jsonl names win (the newest line); archived rollouts are listed
    only with includeArchived."""
    write_rollout(isolated_home)
    archived = isolated_home / ".codex" / "archived_sessions"
    archived.mkdir(parents=True)
    other = "019e1695-0522-7c83-8b39-0dd379793f80"
    shutil.move(write_rollout(isolated_home, other), archived / f"rollout-x-{other}.jsonl")
    (isolated_home / ".codex" / "session_index.jsonl").write_bytes(
        line({"id": THREAD, "thread_name": "old"}) + line({"id": THREAD, "thread_name": "Named"})
    )
    tasks = executor.handle("runtime.tasks.list", {"runtime": "codex"})["tasks"]
    assert [t["title"] for t in tasks] == ["Named"]
    everything = executor.handle("runtime.tasks.list", {"includeArchived": True})["tasks"]
    assert sorted(t["archived"] for t in everything) == [False, True]


def test_index_pending_fills_counts_without_moving_updated_at(
    isolated_home: Path, executor: Executor
) -> None:
    """RW-033: indexing in the background fills messageCount and status for the
    list; it reads each changed file once and never moves updatedAt."""
    path = write_rollout(isolated_home, turns=3)
    write_claude(isolated_home)
    listed = {t["runtime"]: t for t in executor.handle("runtime.tasks.list", {})["tasks"]}
    assert {t["messageCount"] for t in listed.values()} == {0}
    assert executor.index_pending() == 2
    assert executor.index_pending() == 0
    after = {t["runtime"]: t for t in executor.handle("runtime.tasks.list", {})["tasks"]}
    assert after["codex"]["messageCount"] == 6 and after["claude"]["messageCount"] == 2
    assert {k: t["updatedAt"] for k, t in after.items()} == {
        k: t["updatedAt"] for k, t in listed.items()}  # fmt: skip
    with path.open("ab") as handle:
        handle.write(codex_turn(9))
    executor.handle("runtime.tasks.list", {})
    assert executor.index_pending() == 1
    codex = executor.handle("runtime.tasks.list", {"runtime": "codex"})["tasks"][0]
    assert codex["messageCount"] == 8 and codex["updatedAt"] == "2026-01-01T00:00:09Z"


def test_background_indexer_thread(isolated_home: Path, executor: Executor) -> None:
    """The background indexer runs after a list refresh and stops on close."""
    write_rollout(isolated_home)
    executor.start_background_indexing()
    try:
        executor.handle("runtime.tasks.list", {})
    finally:
        executor.close()
    assert executor.index.stale() == ()
    assert executor.handle("runtime.tasks.list", {})["tasks"][0]["messageCount"] == 4


def test_rpc_errors(executor: Executor) -> None:
    """Unknown methods and bad payloads are HangarErrors with stable codes."""
    with pytest.raises(HangarError) as unknown:
        executor.handle("runtime.tasks.teleport", {})
    assert unknown.value.code == "not_supported"
    for payload in ({}, {"localTaskId": 5}, {"localTaskId": "x", "limit": "9"}):
        with pytest.raises(HangarError) as bad:
            executor.handle("runtime.tasks.transcript", payload)
        assert bad.value.code == "invalid_request"
    with pytest.raises(HangarError) as missing:
        executor.handle("runtime.tasks.transcript", {"localTaskId": "nope"})
    assert missing.value.code == "not_found"


def test_cli_list_and_show(isolated_home: Path) -> None:
    """`hangar tasks list/show` print the API shapes; TASK may be a prefix or a thread id."""
    write_rollout(isolated_home)
    runner = CliRunner()
    listed = runner.invoke(cli, ["tasks", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    task_id = json.loads(listed.output)["tasks"][0]["localTaskId"]
    for key in (task_id, task_id[:8], THREAD):
        shown = runner.invoke(cli, ["tasks", "show", key, "--json", "--limit", "2"])
        assert shown.exit_code == 0, shown.output
        data = json.loads(shown.output)
        assert data["task"]["localTaskId"] == task_id and len(data["messages"]) == 2
    human = runner.invoke(cli, ["tasks", "show", THREAD])
    assert "▸ exec_command" in human.output and "answer 2" in human.output
    assert "request 1" in runner.invoke(cli, ["tasks", "list"]).output


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_workspace_grouping_with_real_worktree(tmp_path: Path) -> None:
    """RW-015, RW-036..038, RW-040, RW-041: worktrees fold into the main root, chats are
    Conversations."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git(
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
        cwd=repo,
    )
    _git("worktree", "add", "-q", "--detach", str(tmp_path / "wt" / "feature-1"), cwd=repo)
    worktree = classify(str(tmp_path / "wt" / "feature-1"))
    assert worktree.kind == "worktree" and worktree.worktree_id == "feature-1"
    assert worktree.group_workspace_path == str(repo.resolve())
    assert worktree.workspace_path == str(tmp_path / "wt" / "feature-1")
    main = classify(str(repo))
    assert (main.kind, main.group_workspace_path) == ("workspace", str(repo))
    chat = classify("/Users/me/Documents/Codex/2026-05-11/say-hi")
    assert chat.kind == "chat"
    shaped = classify("/gone/repo/.claude/worktrees/fix-7")
    assert (shaped.kind, shaped.worktree_id, shaped.group_workspace_path) == (
        "worktree", "fix-7", "/gone/repo")  # fmt: skip
    beside = classify("/gone/shop.worktrees/fix-checkout/src")
    assert (beside.kind, beside.worktree_id, beside.group_workspace_path) == (
        "worktree", "fix-checkout", "/gone/shop")  # fmt: skip
    assert classify(None).kind == "chat"


def test_a_broken_store_does_not_hide_other_tasks(isolated_home: Path) -> None:
    """DESIGN §6: a store whose listing fails is reported; other agents' tasks still list,
    and its own tasks stay as they were (not marked missing)."""
    from hangar.agents.codex import CodexStore
    from hangar.agents.registry import open_stores

    class BrokenCodex(CodexStore):
        broken = False

        def session_paths(self):  # type: ignore[no-untyped-def]
            if self.broken:
                raise RuntimeError("agent home is unreadable")
            return super().session_paths()

    write_rollout(isolated_home)
    write_claude(isolated_home)
    stores = dict(open_stores())
    codex = BrokenCodex(stores["codex"].home)
    stores["codex"] = codex
    executor = Executor.open(stores=stores)
    assert len(executor.handle("runtime.tasks.list", {})["tasks"]) == 2
    codex.broken = True
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    assert sorted((t["runtime"], t["status"]) for t in tasks) == [
        ("claude", "done"), ("codex", "done")]  # fmt: skip
    assert "RuntimeError" in executor.index.last_refresh.store_errors["codex"]
