"""The web UI's side of adoption and of the issue's checklist, in a real browser (Debian's
Chromium through Playwright) on a real ``hangar serve``, over a real Claude session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect, sync_playwright

from browser.conftest import CHROMIUM, CHROMIUM_ARGS, _require_browser  # a sibling package
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict
from hub.server_process import running_hub

from .conftest import sandbox_environ

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]


def plan(status: str, text: str) -> dict[str, Any]:
    return {
        "name": "adopt-ui",
        "turns": [
            {"plan": {"items": [{"content": "Write the notes", "status": status}]}},
            {"text": text},
        ],
    }


def test_adopt_from_the_task_pane_and_watch_the_checklist_grow(
    agent_sandbox: AgentSandbox, hangar_home: Path, tmp_path: Path
) -> None:
    """The task pane's "Adopt into issue" makes an issue of the task's first request; the
    issue page shows the agent's checklist as a progress bar and list, the issue list its
    progress, and when the real CLI resumes the session and completes the item both open
    pages follow without a reload."""
    _require_browser()
    first = agent_sandbox.run_agent(
        "claude", scenario_from_dict(plan("in_progress", "Started.")), "Draft the notes"
    )
    assert first.returncode == 0, first.stderr
    with running_hub(env=sandbox_environ(agent_sandbox)) as hub, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        context.set_default_timeout(20_000)
        try:
            page: Any = context.pages[0] if context.pages else context.new_page()
            page.goto(hub.url + "/login")
            page.fill("#token", hub.token(hangar_home))
            page.press("#token", "Enter")
            page.wait_for_url("**/runtime-tasks")
            page.locator("#sidebar-content a.task", has_text="Draft the notes").click()
            expect(page.locator("#messages")).to_contain_text("Started.")
            page.click("#adopt-button")
            expect(page.locator('label[for="confirm-input"]')).to_have_text("Issue key")
            page.click("#confirm-ok")
            expect(page.locator("#status-line")).to_contain_text("Adopted into HGR-1")
            page.click("#adopted-issue-link")
            page.wait_for_url("**/issues/HGR-1")
            expect(page.locator("#issue-title")).to_have_text("Draft the notes")
            section = page.locator("#issue-checklist")
            expect(section.locator("li.cl-in_progress")).to_have_text("▸ Write the notes")
            expect(page.locator("#issue-checklist-count")).to_have_text("0/1 done")
            expect(page.locator(".run-status")).to_have_text("following")
            page.evaluate("window.__sameDocument = true")
            listing: Any = context.new_page()
            listing.goto(hub.url + "/issues")
            cell = listing.locator('tr[data-issue-key="HGR-1"] td.plan-cell')
            expect(cell.locator(".count")).to_have_text("0/1")
            listing.evaluate("window.__sameDocument = true")

            again = agent_sandbox.run_agent(
                "claude",
                scenario_from_dict(plan("completed", "Finished.")),
                "Finish the notes",
                resume=True,
            )
            assert again.returncode == 0, again.stderr
            expect(page.locator("#issue-checklist-count")).to_have_text("1/1 done")
            expect(section.locator("li.cl-completed")).to_have_text("✓ Write the notes")
            expect(page.locator("#issue-checklist-progress")).to_have_attribute("value", "1")
            expect(page.locator(".run-log")).to_contain_text("Finished.")
            assert page.evaluate("window.__sameDocument") is True
            expect(cell.locator(".count")).to_have_text("1/1")
            expect(cell.locator("progress")).to_have_attribute("value", "1")
            assert listing.evaluate("window.__sameDocument") is True
        finally:
            context.close()
