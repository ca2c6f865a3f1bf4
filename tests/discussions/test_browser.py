"""The web UI over a discussion a real Claude made: the issue page shows where the issue came
from, the discussion page shows only the saved questions, answers and the plan.

The discussion is made with the real Claude TUI in the sandbox (its turns think, call tools
and get their results); then the same hub database is served by a `hangar serve` outside the
sandbox, which the real browser (Playwright + Debian's Chromium) opens."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect, sync_playwright

from browser.conftest import CHROMIUM, CHROMIUM_ARGS  # tests/browser, a sibling package
from hub.server_process import running_hub
from localrun.sandbox_hub import USER_TOKEN, SandboxHub

from .kit import (
    CLAUDE_READY,
    PLAN,
    PLAN_FILE,
    approve_claude_plan,
    open_fields,
    say,
    start_tmux,
    the_discussion,
    to_create,
)

pytestmark = [pytest.mark.real_agents, pytest.mark.browser]

THOUGHT = "Thinking-marker: weigh the options first."
TURNS = [
    {"text": "Keep a turn table per file signature.", "reasoning": THOUGHT},
    {"write": {"path_from": PLAN_FILE, "content": PLAN}, "reasoning": THOUGHT},
    {"call": {"ExitPlanMode": {}}},
    {"text": "Implementing now."},
]


def _discussion_made_by_claude(hub: SandboxHub) -> dict[str, Any]:
    term = start_tmux(hub, ["claude"], TURNS)
    try:
        term.wait_text(CLAUDE_READY, 90)
        say(term, "how should we cache", "❯\u00a0")
        term.wait_text("Keep a turn table", 60)
        say(term, "plan it", "❯\u00a0")
        approve_claude_plan(term)
        term.wait_text("1/2 the plan", 30)
        open_fields(term)
        to_create(term)
        term.key("Enter")
        term.wait_text("Issue HGR-1 created", 30)
    finally:
        term.close()
    return the_discussion(hub)


def test_issue_source_link_and_a_discussion_page_of_questions_and_answers(
    sandbox_hub: SandboxHub, tmp_path: Path
) -> None:
    """LR-116, LR-117, LR-089: the issue page shows "from discussion" with a link; the
    discussion page lists the question, the answer, the next question and the plan — and
    none of Claude's thinking, its Write call or the tool's result."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not installed (make browser)")
    discussion = _discussion_made_by_claude(sandbox_hub)
    sandbox_hub.stop_hub()
    serve_home = tmp_path / "serve-home"
    serve_home.mkdir()
    env = {
        **os.environ,
        "HANGAR_HOME": str(sandbox_hub.hub_home),
        "HANGAR_TOKEN": USER_TOKEN,
        "HOME": str(serve_home),
    }
    with running_hub(env=env) as hub, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1200, "height": 900},
        )
        context.set_default_timeout(15_000)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(hub.url + "/issues/HGR-1")
            page.wait_for_url("**/login?next=*")
            page.fill("#token", USER_TOKEN)
            page.press("#token", "Enter")
            page.wait_for_url("**/issues/HGR-1")
            expect(page.locator("#issue-source")).to_contain_text("from discussion")
            expect(page.locator("#description")).to_contain_text("Cache the transcript index")
            page.click("#source-discussion")
            page.wait_for_url(f"**/discussions/{discussion['id']}")
            turns = page.locator("#turns .turn")
            expect(turns).to_have_count(4)
            roles = [turns.nth(i).get_attribute("data-role") for i in range(4)]
            assert roles == ["user", "assistant", "user", "plan"]
            expect(turns.nth(0)).to_contain_text("how should we cache")
            expect(turns.nth(1)).to_contain_text("Keep a turn table per file signature.")
            expect(turns.nth(3)).to_contain_text("Persist the turn table by file signature.")
            body = page.locator("main").inner_text()
            assert "Thinking-marker" not in body  # no thinking
            assert "plan-it" not in body and ".claude/plans" not in body  # no Write call
            assert "File created successfully" not in body  # no tool result
            assert "Implementing now." not in body  # that turn is the run's
            expect(page.locator("#discussion-issue")).to_have_text("HGR-1")
            page.click("nav >> text=Discussions")
            expect(page.locator("#discussions tbody tr")).to_have_count(1)
            expect(page.locator("#discussions")).to_contain_text("became an issue")
        finally:
            context.close()
