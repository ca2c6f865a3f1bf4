"""The terminal beside a task, in a real browser against a real hub.

The hub serves a real git project with a linked worktree and Claude Code sessions in both
(``workspace_tools.projects``); xterm.js is served as a static asset.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from workspace_tools.projects import Project, make_project

from .conftest import _require_browser, logged_in_page, running_hub, screenshot

pytestmark = pytest.mark.browser


@dataclass
class ToolsHub:
    url: str
    token: str
    project: Project


@pytest.fixture
def tools_hub(isolated_home: Path, hangar_home: Path, tmp_path: Path) -> Iterator[ToolsHub]:
    _require_browser()
    project = make_project(isolated_home, tmp_path)
    with running_hub() as hub:
        yield ToolsHub(hub.url, hub.token(hangar_home), project)


@pytest.fixture
def tools_page(tools_hub: ToolsHub, tmp_path: Path) -> Iterator[Any]:
    with logged_in_page(tools_hub.url, tools_hub.token, tmp_path / "profile") as tab:
        yield tab


def terminal_rows(page: Any) -> Any:
    return page.locator(".terminal-host:not([hidden]) .xterm-rows")


def type_in_terminal(page: Any, text: str) -> None:
    page.locator(".terminal-host:not([hidden]) .xterm-helper-textarea").focus()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def test_the_terminal_opens_in_the_tasks_directory_and_runs_a_command(
    tools_page: Any, tools_hub: ToolsHub
) -> None:
    """RW-249, RW-253: the worktree task's terminal is a shell in the worktree itself; what is
    typed runs there and its output shows in the panel."""
    page, project = tools_page, tools_hub.project
    page.locator("#sidebar-content a.task", has_text="Build feature x").click()
    expect(page.locator("#task-title")).to_have_text("Build feature x")
    page.click("#terminal-button")
    expect(page.locator("#terminal-panel")).to_be_visible()
    expect(page.locator("#terminal-cwd")).to_have_text(str(project.worktree))
    expect(page.locator("#terminal-state")).to_have_text("running")
    type_in_terminal(page, "pwd; cat feature.txt; echo done-$((6*7))")
    rows = terminal_rows(page)
    expect(rows).to_contain_text("done-42")
    expect(rows).to_contain_text("only in the worktree")
    expect(rows).to_contain_text(str(project.worktree))
    # ANSI colours render with xterm.js's palette
    type_in_terminal(page, "printf '\\033[31m%s\\033[0m\\n' red-$((1+1))")
    red = rows.locator("span.xterm-fg-1", has_text="red-2")
    expect(red).to_have_css("color", "rgb(204, 0, 0)")  # xterm.js default palette red
    screenshot(page, "terminal")


def test_switching_tasks_keeps_each_terminal_and_switching_back_restores_it(
    tools_page: Any, tools_hub: ToolsHub
) -> None:
    """RW-255, RW-256: task B never shows task A's terminal; back on A, A's terminal is as it
    was, the same shell (its variable is still set); after a reload A's terminal comes back
    with its earlier output."""
    page, project = tools_page, tools_hub.project
    page.locator("#sidebar-content a.task", has_text="Build feature x").click()
    page.click("#terminal-button")
    expect(page.locator("#terminal-state")).to_have_text("running")
    type_in_terminal(page, "MARK=a-$((20+1)); echo task-$MARK")
    expect(terminal_rows(page)).to_contain_text("task-a-21")

    page.locator("#sidebar-content a.task", has_text="Fix the cart").click()
    expect(page.locator("#task-title")).to_have_text("Fix the cart")
    expect(page.locator("#terminal-panel")).to_be_hidden()
    page.click("#terminal-button")
    expect(page.locator("#terminal-cwd")).to_have_text(str(project.root))
    expect(page.locator("#terminal-state")).to_have_text("running")
    type_in_terminal(page, "echo task-b-${MARK:-unset}")
    expect(terminal_rows(page)).to_contain_text("task-b-unset")
    expect(terminal_rows(page)).not_to_contain_text("task-a-21")

    page.locator("#sidebar-content a.task", has_text="Build feature x").click()
    expect(page.locator("#terminal-panel")).to_be_visible()
    expect(page.locator("#terminal-cwd")).to_have_text(str(project.worktree))
    expect(terminal_rows(page)).to_contain_text("task-a-21")
    type_in_terminal(page, "echo again-$MARK")
    expect(terminal_rows(page)).to_contain_text("again-a-21")

    page.reload()
    expect(page.locator("#terminal-panel")).to_be_visible()
    expect(page.locator("#terminal-state")).to_have_text("reattached")
    expect(terminal_rows(page)).to_contain_text("again-a-21")
    type_in_terminal(page, "echo after-reload-$MARK")
    expect(terminal_rows(page)).to_contain_text("after-reload-a-21")


def test_the_file_view_shows_the_worktree_tasks_directory_with_git_status(
    tools_page: Any, tools_hub: ToolsHub
) -> None:
    """RW-249, RW-250: the worktree task's file view is the worktree (its branch, its own
    untracked file, a subdirectory opened on demand, a file read-only), not the project."""
    page, project = tools_page, tools_hub.project
    (project.worktree / "src" / "cart.py").write_text("TOTAL = 5\n")
    page.locator("#sidebar-content a.task", has_text="Build feature x").click()
    expect(page.locator("#task-title")).to_have_text("Build feature x")
    page.click("#files-button")
    panel = page.locator("#files-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#files-root")).to_have_text(str(project.worktree))
    expect(page.locator("#files-git")).to_have_text("On feature-x · 2 changed")
    changes = page.locator("#files-changes")
    expect(changes.locator("button[data-path='feature.txt'] .git-untracked")).to_have_count(1)
    expect(changes.locator("button[data-path='src/cart.py'] .git-M")).to_have_count(1)
    page.locator("#files-tree summary", has_text="src/").click()
    page.locator("#files-tree button.file-link[data-path='src/cart.py']").click()
    expect(page.locator("#file-view-path")).to_have_text("src/cart.py")
    expect(page.locator("#file-view-text")).to_have_text("TOTAL = 5\n")
    screenshot(page, "files")
    page.locator("#sidebar-content a.task", has_text="Fix the cart").click()
    expect(page.locator("#task-title")).to_have_text("Fix the cart")
    if panel.is_hidden():  # whether the panel stays open is the page's choice; its content is not
        page.click("#files-button")
    expect(page.locator("#files-root")).to_have_text(str(project.root))
    expect(page.locator("#files-git")).to_have_text("On main · no changes")
