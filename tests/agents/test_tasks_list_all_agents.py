"""`hangar tasks list` over homes holding sessions of every agent: each agent's tasks are
listed once, child sessions never, and tasks group by project (a worktree folds into its
repository)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hangar.agents.registry import agent_homes

from .homes import FIXTURE_HOMES
from .samples import continue_sample_home, opencode_sqlite_home

GIT = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@e",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT}
    )


def _hangar(*args: str) -> object:
    done = subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_tasks_of_every_agent_are_listed_and_grouped(
    isolated_home: Path, public_fixtures: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repos" / "app"
    repo.mkdir(parents=True)
    _git("init", "-q", "-b", "main", cwd=repo)
    _git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    worktree = tmp_path / "repos" / "app-feature"
    _git("worktree", "add", "-q", "-b", "feature", str(worktree), cwd=repo)

    homes = agent_homes()
    # Each agent's samples at the place that agent keeps them in this HOME.
    for runtime, build in FIXTURE_HOMES.items():
        sample = build(public_fixtures, tmp_path / "samples" / runtime)
        target = homes[runtime]
        shutil.copytree(sample.root, target.root, dirs_exist_ok=True)
        for (_, extra), (_, wanted) in zip(sample.extra, target.extra, strict=False):
            shutil.copytree(extra, wanted, dirs_exist_ok=True)
    opencode_sqlite_home(homes["opencode"].root, directory=str(worktree))
    continue_sample_home(homes["continue"].root, workspace=str(repo))

    tasks = _hangar("tasks", "list", "--json")["tasks"]  # type: ignore[index]
    by_runtime: dict[str, list[dict[str, object]]] = {}
    for task in tasks:
        by_runtime.setdefault(str(task["runtime"]), []).append(task)
    expected = {
        "opencode": 1,
        "continue": 1,
        "gemini": 9,
        "copilot": 4,
        "qwen": 6,
        "cursor": 4,
        "kiro": 4,
    }
    for runtime, count in expected.items():
        assert len(by_runtime.get(runtime, [])) == count, (runtime, by_runtime.get(runtime))
    titles = {t["title"] for t in by_runtime["cursor"]}
    assert "List files" not in titles, "the Cursor sub-agent transcript is not a task"
    [opencode] = by_runtime["opencode"]
    [cont] = by_runtime["continue"]
    assert opencode["title"] == "Plan the work"
    assert (opencode["workspaceKind"], opencode["workspacePath"]) == ("worktree", str(worktree))
    assert (cont["workspaceKind"], cont["workspacePath"]) == ("workspace", str(repo))
    assert opencode["groupWorkspacePath"] == cont["groupWorkspacePath"] == str(repo)

    shown = _hangar("tasks", "show", str(opencode["localTaskId"]), "--json")
    assert shown["checklist"]["items"][0]["content"] == "Reproduce the bug"  # type: ignore[index]
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]  # type: ignore[index]
