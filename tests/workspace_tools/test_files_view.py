"""The read-only file view of a task's directory, through the hub, on a real git project.

The worktree task's view is the worktree itself (never the project it is grouped under); git
status is git's own answer for that directory; nothing outside the directory is reachable and
nothing is written.
"""

from __future__ import annotations

import subprocess
from typing import Any

from workspace_tools.projects import Project, git

from .conftest import Browser


def address(browser: Browser, directory: str, **extra: Any) -> dict[str, Any]:
    task = browser.tasks()[directory]
    return {
        "deviceId": task["deviceId"],
        "localTaskId": task["localTaskId"],
        "workspacePath": task["workspacePath"],
        **extra,
    }


def test_the_worktree_tasks_view_lists_reads_and_shows_git_status(
    browser: Browser, project: Project
) -> None:
    """RW-249, RW-250: the worktree task's view is the worktree's own, not its project's: the
    listing (git's directory hidden), a file read back as written, and git status of the
    worktree (its branch, each change as git reports it) while the project stays clean."""
    (project.worktree / "src" / "cart.py").write_text("TOTAL = 42\n")
    git("add", "src/cart.py", cwd=project.worktree)
    (project.worktree / "blob.bin").write_bytes(b"\x00\x01binary")
    where = address(browser, str(project.worktree))
    listing = browser.post("/api/runtime-work/files/list", where).json()
    names = {e["name"]: e["kind"] for e in listing["entries"]}
    assert names == {
        "README.md": "file", "src": "dir", "feature.txt": "file", "blob.bin": "file",
    }  # fmt: skip
    read = browser.post("/api/runtime-work/files/read", {**where, "path": "src/cart.py"}).json()
    assert read["text"] == "TOTAL = 42\n" and not read["binary"]
    binary = browser.post("/api/runtime-work/files/read", {**where, "path": "blob.bin"}).json()
    assert binary["binary"] and binary["text"] is None
    status = browser.post("/api/runtime-work/files/status", where).json()
    assert status["repository"] and status["branch"] == "feature-x"
    changes = {e["path"]: (e["index"], e["worktree"]) for e in status["entries"]}
    expected = subprocess.run(
        ["git", "status", "--porcelain"], cwd=project.worktree, capture_output=True, text=True
    ).stdout
    assert changes == {"src/cart.py": ("M", "."), "feature.txt": ("?", "?"), "blob.bin": ("?", "?")}
    assert "M  src/cart.py" in expected
    main_status = browser.post(
        "/api/runtime-work/files/status", address(browser, str(project.root))
    )
    assert main_status.json()["branch"] == "main" and main_status.json()["entries"] == []


def test_paths_that_leave_the_directory_are_refused_and_nothing_is_written(
    browser: Browser, project: Project
) -> None:
    """``..``, an absolute path and a symlink (even one pointing back inside) are refused
    ``unsafe_path``; another directory is refused; the tree is as it was."""
    (project.worktree / "etc-link").symlink_to("/etc")
    (project.worktree / "inside-link").symlink_to("feature.txt")
    where = address(browser, str(project.worktree))
    before = sorted((p.name, p.lstat().st_mtime_ns) for p in project.worktree.iterdir())
    for path in ("../shop/README.md", "/etc/passwd", "etc-link/passwd", "inside-link"):
        response = browser.post("/api/runtime-work/files/read", {**where, "path": path})
        assert response.status_code == 400, (path, response.text)
        assert response.json()["error"]["code"] == "unsafe_path", response.text
    listing = browser.post("/api/runtime-work/files/list", where).json()
    links = {e["name"]: e["target"] for e in listing["entries"] if e["kind"] == "symlink"}
    assert links == {"etc-link": "/etc", "inside-link": "feature.txt"}
    foreign = {**where, "workspacePath": "/etc"}
    assert browser.post("/api/runtime-work/files/list", foreign).status_code in (400, 403, 404)
    after = sorted((p.name, p.lstat().st_mtime_ns) for p in project.worktree.iterdir())
    assert before == after
