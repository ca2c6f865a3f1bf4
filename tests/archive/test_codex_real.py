"""Archive, rename and delete through the real ``codex app-server`` inside the sandbox."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.agents.registry import open_stores
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox

pytestmark = pytest.mark.real_agents


@pytest.fixture
def codex_executor(agent_sandbox: AgentSandbox, isolated_home: Path) -> Iterator[Executor]:
    """An executor whose Codex store and app-server are the sandbox's."""
    codex_home = agent_sandbox.host(agent_sandbox.homes.home) / ".codex"
    stores = open_stores({"HOME": str(isolated_home), "CODEX_HOME": str(codex_home)})
    ex = Executor.open(stores={"codex": stores["codex"]}, launcher=agent_sandbox.launcher())
    yield ex
    ex.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_archive_unarchive_rename_and_delete_through_codex(
    agent_sandbox: AgentSandbox, codex_executor: Executor
) -> None:
    """RW-162/RW-163/RW-164: Codex threads are archived, renamed and deleted by Codex itself;
    the archived list shows the thread Codex archived."""
    run = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert run.returncode == 0, run.stderr
    (rollout,) = [p for p in run.store_files if p.name.startswith("rollout-")]
    codex_home = agent_sandbox.host(agent_sandbox.homes.home) / ".codex"
    (task,) = codex_executor.handle("runtime.tasks.list", {})["tasks"]
    task_id = task["localTaskId"]
    original = _digest(rollout)

    reply = codex_executor.handle("runtime.tasks.archive", {"localTaskId": task_id})
    assert reply == {"localTaskId": task_id, "archived": True, "via": "codex-app-server"}
    archived = codex_home / "archived_sessions" / rollout.name
    assert archived.is_file() and not rollout.exists()  # moved by Codex, as Codex does
    assert _digest(archived) == original
    assert codex_executor.handle("runtime.tasks.list", {})["tasks"] == []
    listed = codex_executor.handle("runtime.tasks.archived_list", {})
    assert [i["threadId"] for i in listed["items"]] == [run.session_id]

    reply = codex_executor.handle("runtime.tasks.unarchive", {"localTaskId": task_id})
    assert reply["archived"] is False and not archived.exists()
    (task,) = codex_executor.handle("runtime.tasks.list", {})["tasks"]
    assert task["localTaskId"] == task_id

    reply = codex_executor.handle(
        "runtime.tasks.rename", {"localTaskId": task_id, "title": "Greeting check"}
    )
    assert reply["via"] == "codex-app-server"
    names = (codex_home / "session_index.jsonl").read_text()
    assert "Greeting check" in names  # written by Codex through thread/name/set

    current = Path(
        codex_executor.db.read()
        .execute("SELECT source_path FROM local_tasks WHERE local_task_id = ?", (task_id,))
        .fetchone()[0]
    )
    before = _digest(current)
    codex_executor.handle("runtime.tasks.delete", {"localTaskId": task_id})
    deleter = codex_executor.deleter
    assert deleter.wait_idle(120)
    row = (
        codex_executor.db.read()
        .execute(
            "SELECT state, method, error FROM delete_queue WHERE local_task_id = ?", (task_id,)
        )
        .fetchone()
    )
    assert tuple(row) == ("done", "codex-thread-delete", None)
    assert not current.exists()  # Codex removed its own thread
    codex_executor.handle("runtime.tasks.restore", {"localTaskId": task_id})
    assert _digest(current) == before  # the copy taken before thread/delete comes back


def test_stale_thread_is_cleaned_not_archived(
    agent_sandbox: AgentSandbox, codex_executor: Executor
) -> None:
    """RW-169..RW-172: "no rollout found" → thread/delete + a marker; never shown archived."""
    run = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert run.returncode == 0, run.stderr
    (task,) = codex_executor.handle("runtime.tasks.list", {})["tasks"]
    (rollout,) = [p for p in run.store_files if p.name.startswith("rollout-")]
    rollout.rename(rollout.with_name("elsewhere.jsonl.bak"))  # the rollout goes missing
    reply = codex_executor.handle("runtime.tasks.archive", {"localTaskId": task["localTaskId"]})
    assert reply == {
        "localTaskId": task["localTaskId"],
        "archived": False,
        "cleanupReason": "missing_rollout",
    }
    assert codex_executor.handle("runtime.tasks.archived_list", {})["items"] == []
    assert codex_executor.handle("runtime.tasks.list", {})["tasks"] == []
    markers = codex_executor.db.read().execute("SELECT session_key FROM stale_thread_markers")
    assert [m[0] for m in markers] == [run.session_id]
