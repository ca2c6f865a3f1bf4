"""The real Codex CLI changes files in a turn; hangar reviews that turn and reverts it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.agents.launch import NoLauncher
from hangar.agents.registry import open_stores
from hangar.executor.service import Executor
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

pytestmark = pytest.mark.real_agents

PATCH = """apply_patch <<'EOF'
*** Begin Patch
*** Update File: README.md
@@
-# shop
+# shop, patched by the agent
*** Add File: notes/todo.txt
+first thing
+second thing
*** Delete File: obsolete.txt
*** End Patch
EOF"""
FILES = {"README.md": "# shop\nkept line\n", "obsolete.txt": "remove me\nand me\n"}


@pytest.fixture
def codex_executor(agent_sandbox: AgentSandbox, isolated_home: Path) -> Iterator[Executor]:
    codex_home = agent_sandbox.host(agent_sandbox.homes.home) / ".codex"
    stores = open_stores({"HOME": str(isolated_home), "CODEX_HOME": str(codex_home)})
    ex = Executor.open(stores={"codex": stores["codex"]}, launcher=NoLauncher())
    yield ex
    ex.close()


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_a_real_codex_turn_is_reviewed_and_reverted(
    agent_sandbox: AgentSandbox, codex_executor: Executor
) -> None:
    """RW-237, RW-243: Codex 0.171 applies a patch (its ``item_completed``
    FileChange); the transcript carries the file-change block, the review shows that turn's
    patch, and the revert brings the directory back to how it was before the turn."""
    scenario = scenario_from_dict(
        {"name": "patch-shop", "workspace": {"git": True, "files": FILES},
         "turns": [{"shell": PATCH}, {"text": "Patched the shop."}]}
    )  # fmt: skip
    workdir = agent_sandbox.host(agent_sandbox.homes.home / "projects" / "patch-shop")
    run = agent_sandbox.run_agent("codex", scenario, "Patch the shop")
    assert run.returncode == 0, run.stderr
    assert (workdir / "notes" / "todo.txt").read_text() == "first thing\nsecond thing\n"
    assert not (workdir / "obsolete.txt").exists()

    (task,) = codex_executor.handle("runtime.tasks.list", {})["tasks"]
    assert task["workspacePath"] == str(workdir)
    page = codex_executor.handle("runtime.tasks.transcript", {"localTaskId": task["localTaskId"]})
    (reply,) = [m for m in page["messages"] if m["role"] == "assistant"]
    (block,) = [b for b in reply["blocks"] if b["type"] == "fileChanges"]
    assert sorted(Path(f["path"]).name for f in block["files"]) == [
        "README.md", "obsolete.txt", "todo.txt"]  # fmt: skip
    address = {
        "localTaskId": task["localTaskId"],
        "workspacePath": task["workspacePath"],
        "artifactId": f"turn-file-changes/0/{reply['turnId']}",
    }
    review = codex_executor.handle("runtime.tasks.turn_file_changes_review", address)
    assert review["state"] == "applied"
    assert {f["path"]: f["changeType"] for f in review["files"]} == {
        "README.md": "update", "notes/todo.txt": "add", "obsolete.txt": "delete"}  # fmt: skip
    done = codex_executor.handle(
        "runtime.tasks.turn_file_changes_revert", {**address, "checksum": review["checksum"]}
    )
    assert done["reverted"] is True
    assert (workdir / "README.md").read_text() == FILES["README.md"]
    assert (workdir / "obsolete.txt").read_text() == FILES["obsolete.txt"]
    assert not (workdir / "notes").exists()
    assert set(_digests(workdir)) == set(FILES)
