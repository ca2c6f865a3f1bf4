"""A real Codex run in a hangar worktree: listed under it, archived by Codex on delete, and
the worktree brought back with the agent's work when the task is unarchived."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.agents.registry import open_stores
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .conftest import make_repo, workspace_fingerprint

pytestmark = pytest.mark.real_agents


@pytest.fixture
def codex_executor(agent_sandbox: AgentSandbox, isolated_home: Path) -> Iterator[Executor]:
    """An executor whose Codex store and app-server are the sandbox's."""
    codex_home = agent_sandbox.host(agent_sandbox.homes.home) / ".codex"
    stores = open_stores({"HOME": str(isolated_home), "CODEX_HOME": str(codex_home)})
    ex = Executor.open(stores={"codex": stores["codex"]}, launcher=agent_sandbox.launcher())
    yield ex
    ex.close()


def test_codex_works_in_a_worktree_that_is_deleted_and_restored(
    agent_sandbox: AgentSandbox, codex_executor: Executor
) -> None:
    """RW-186, RW-188, RW-198, RW-199: the real Codex writes a file in a prepared
    worktree; the list shows its task there; delete archives the thread through Codex and
    removes the worktree after its snapshot; unarchive brings both back."""
    home = agent_sandbox.host(agent_sandbox.homes.home)
    repo = make_repo(home / "projects" / "shop")
    codex_executor.handle(
        "runtime.worktrees.settings.update", {"root": str(home / "hangar-worktrees")}
    )
    main_before = workspace_fingerprint(repo)
    made = codex_executor.handle(
        "runtime.worktrees.prepare", {"sourcePath": str(repo), "worktreeId": "codex-1"}
    )
    wt = Path(made["path"])
    scenario = scenario_from_dict(
        {"name": "in-worktree",
         "turns": [{"shell": "echo 'agent output' > result.txt"}, {"text": "Wrote it."}]}
    )  # fmt: skip
    run = agent_sandbox.run_agent("codex", scenario, "Write the result", cwd=wt)
    assert run.returncode == 0, run.stderr
    assert (wt / "result.txt").read_text() == "agent output\n"

    (group,) = codex_executor.handle("runtime.worktrees.list", {})["repositories"]
    (listed,) = group["worktrees"]
    (task,) = listed["tasks"]
    assert task["runtime"] == "codex" and not task["archived"]

    gone = codex_executor.handle("runtime.worktrees.delete", {"worktreeId": "codex-1"})
    assert gone["archivedTaskIds"] == [task["localTaskId"]] and not wt.exists()
    archived = codex_executor.handle("runtime.tasks.archived_list", {})["items"]
    assert [i["localTaskId"] for i in archived] == [task["localTaskId"]]

    back = codex_executor.handle("runtime.tasks.unarchive", {"localTaskId": task["localTaskId"]})
    assert back["via"] == "codex-app-server" and back["worktree"]["restored"] is True
    assert (wt / "result.txt").read_text() == "agent output\n"
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=wt, capture_output=True, text=True, check=True
    ).stdout
    assert status == "?? result.txt\n"
    assert workspace_fingerprint(repo) == main_before
