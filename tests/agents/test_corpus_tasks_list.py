"""`hangar tasks list` over the committed demo corpus (sessions the real CLIs wrote): the
tasks of every agent appear once, where they ran, grouped by project."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "demo" / "corpus"
RUNTIME = {"codex": "codex", "claude": "claude", "opencode": "opencode", "cn": "continue"}


def test_every_agent_of_the_corpus_is_listed_and_grouped(isolated_home: Path) -> None:
    if not (CORPUS / "manifest.json").is_file():
        pytest.skip("demo corpus not present (make corpus)")
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    shutil.copytree(CORPUS / "home", isolated_home, dirs_exist_ok=True)
    env = {**os.environ, "XDG_DATA_HOME": str(isolated_home / ".local" / "share")}
    done = subprocess.run(
        [sys.executable, "-m", "hangar", "tasks", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    tasks = json.loads(done.stdout)["tasks"]
    assert len(tasks) == len(manifest["sessions"])
    by_session = {
        (t["runtime"], t["runtimeHandle"].get("sessionId") or t["runtimeHandle"].get("threadId")): t
        for t in tasks
    }
    for session in manifest["sessions"]:
        task = by_session[(RUNTIME[session["cli"]], session["sessionId"])]
        assert task["workspacePath"] == session["cwd"], session
        assert task["title"] and task["title"] != "(untitled)", task
    # OpenCode and Continue ran in the same project: one group, both plain workspaces.
    infra = [t for t in tasks if t["runtime"] in ("opencode", "continue")]
    assert {t["runtime"] for t in infra} == {"opencode", "continue"}
    assert {t["groupWorkspacePath"] for t in infra} == {"/home/demo/code/infra"}
    assert {t["workspaceKind"] for t in infra} == {"workspace"}
    kinds = {s["cwd"]: s["workspaceKind"] for s in manifest["sessions"]}
    chat = [t for t in tasks if kinds[t["workspacePath"]] == "chat"]
    assert [t["workspaceKind"] for t in chat] == ["chat"]
    # RW-036..038: the worktree session folds into its repository's project.
    for session in manifest["sessions"]:
        task = by_session[(RUNTIME[session["cli"]], session["sessionId"])]
        assert task["workspaceKind"] == session["workspaceKind"], session
        if session.get("repositoryRoot"):
            assert task["groupWorkspacePath"] == session["repositoryRoot"], session
