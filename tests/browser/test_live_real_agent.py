"""A real agent CLI appends to its session while the page is open: no reload needed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect, sync_playwright

from hangar.testing.agent_runs import AgentSandbox

from .conftest import CHROMIUM, CHROMIUM_ARGS, _require_browser, running_hub

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]


def hub_env(home: Path) -> dict[str, str]:
    """The test's environment with HOME (and so every agent home) in the sandbox's home."""
    env = dict(os.environ)
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")
    return env


def test_a_growing_real_claude_session_updates_the_open_page(
    agent_sandbox: AgentSandbox, hangar_home: Path, tmp_path: Path
) -> None:
    _require_browser()
    first = agent_sandbox.run_agent("claude", "hello", "Say hello")
    assert first.returncode == 0, first.stderr
    home = agent_sandbox.host(agent_sandbox.homes.home)
    with running_hub(env=hub_env(home)) as hub, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
        )
        context.set_default_timeout(20_000)
        try:
            page: Any = context.pages[0] if context.pages else context.new_page()
            page.goto(hub.url + "/login")
            page.fill("#token", hub.token(hangar_home))
            page.press("#token", "Enter")
            page.wait_for_url("**/runtime-tasks")
            task = page.locator("#sidebar-content a.task", has_text="Say hello")
            task.click()
            messages = page.locator("#messages article.msg")
            expect(messages.last).to_contain_text("Hi from the fake model!")
            count = messages.count()
            page.evaluate("window.__sameDocument = true")

            again = agent_sandbox.run_agent("claude", "hello", "Say hello again", resume=True)
            assert again.returncode == 0, again.stderr
            expect(messages.filter(has_text="Say hello again")).to_have_count(1)
            expect(messages).to_have_count(count + 2)
            assert page.evaluate("window.__sameDocument") is True
        finally:
            context.close()
