"""The "New task" flow in a real browser: a real Claude Code in the sandbox creates the task.

The project is a git repository where Claude ran once (so the device reports it); the dialog
offers its branches current-first, the agent's own models, and opens the new task at once.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.hub_thread import serve_local
from hangar.testing.scenarios import scenario_from_dict

from .conftest import _require_browser, screenshot
from .test_composer import SLOW, browser, login, play, sandbox_hangar  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]
TOKEN = "composer-browser-token-0123456789"


def test_new_task_flow_creates_a_claude_task_that_replies(
    agent_sandbox: AgentSandbox,
    hangar_home: Path,
    isolated_home: Path,
    browser: Any,  # noqa: F811
) -> None:
    """RW-272, RW-274, RW-293: the page generates the localTaskId, opens the task's address
    at once with the first message waiting, the reply streams in and the task lists under the
    project; a new blank project with a name that exists is refused with a request to rename,
    another name creates it and its first task."""
    _require_browser()
    shop = scenario_from_dict(
        {
            "name": "shop",
            "workspace": {"git": True, "files": {"cart.py": "TOTAL = 0\n"}},
            "turns": [{"text": "Looked at the shop."}],
        }
    )
    first = agent_sandbox.run_agent("claude", shop, "Look at the shop", cwd="projects/shop")
    assert first.returncode == 0, first.stderr
    local = sandbox_hangar(agent_sandbox, "claude")
    try:
        with serve_local(local, TOKEN) as url:
            page = login(browser, url)
            page.click("#new-task-button")
            dialog = page.locator("#new-task-dialog")
            expect(dialog).to_be_visible()
            expect(page.locator("#new-task-project option", has_text="shop")).to_have_count(1)
            page.select_option("#new-task-project", label="shop")
            page.check("input[name=new-task-mode][value=git_worktree]")
            expect(page.locator("#new-task-branch option").first).to_have_text("main (current)")
            page.check("input[name=new-task-mode][value=current_workspace]")
            expect(page.locator("#new-task-branch-row")).to_be_hidden()
            page.select_option("#new-task-agent", "claude")
            expect(page.locator("#new-task-model option[value=sonnet]")).to_have_count(
                1, timeout=SLOW
            )
            page.select_option("#new-task-model", "sonnet")
            page.fill("#new-task-text", "Plan the checkout page")
            screenshot(page, "new-task")
            play(agent_sandbox, {"text": "A plan for the checkout, from a new task.", "delay": 2})
            page.click("#new-task-create")
            expect(dialog).to_be_hidden(timeout=SLOW)
            page.wait_for_url(re.compile(r".*localTaskId=[0-9a-f]{32}.*"))
            task_id = parse_qs(urlparse(page.url).query)["localTaskId"][0]
            live = page.locator("#live-turn")
            expect(live.locator(".msg-user")).to_contain_text("Plan the checkout page")
            expect(page.locator("#status-line")).not_to_contain_text("not found")
            messages = page.locator("#messages article.msg")
            expect(messages.last).to_contain_text(
                "A plan for the checkout, from a new task.", timeout=SLOW
            )
            link = page.locator(f'#sidebar-content a.task[data-local-task-id="{task_id}"]')
            expect(link).to_have_count(1, timeout=SLOW)
            project = page.locator("#sidebar-content details.project").filter(
                has=page.locator(f'a.task[data-local-task-id="{task_id}"]')
            )
            expect(project.locator(".project-name")).to_have_text("shop")

            (isolated_home / "Documents" / "kept").mkdir(parents=True)
            page.click("#new-task-button")
            page.select_option("#new-task-project", label="New blank project…")
            page.fill("#new-task-name", "kept")
            page.select_option("#new-task-agent", "claude")
            expect(page.locator("#new-task-model option[value=sonnet]")).to_have_count(
                1, timeout=SLOW
            )
            page.select_option("#new-task-model", "sonnet")
            page.fill("#new-task-text", "Start the notes")
            page.click("#new-task-create")
            expect(page.locator("#new-task-error")).to_contain_text("Rename it.")
            assert list((isolated_home / "Documents" / "kept").iterdir()) == []
            page.fill("#new-task-name", "notes-app")
            play(agent_sandbox, {"text": "Notes started in a blank project."})
            page.click("#new-task-create")
            expect(dialog).to_be_hidden(timeout=SLOW)
            expect(page.locator("#messages article.msg").last).to_contain_text(
                "Notes started in a blank project.", timeout=SLOW
            )
            assert (isolated_home / "Documents" / "notes-app").is_dir()
            expect(
                page.locator("#sidebar-content .project-name", has_text="notes-app")
            ).to_have_count(1, timeout=SLOW)
    finally:
        local.close()
