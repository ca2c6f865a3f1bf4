"""The "Copy to new task" message action in a real browser, with real Codex in the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.hub_thread import serve_local

from .conftest import _require_browser
from .test_composer import SLOW, TOKEN, browser, login, open_task, play, sandbox_hangar

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]
__all__ = ["browser"]  # the fixture, shared with the composer's tests


def test_copying_at_an_earlier_turn_opens_a_copy_that_ends_there(
    agent_sandbox: AgentSandbox, hangar_home: Path, browser: Any
) -> None:
    """RW-298: the action on the first reply sends that turn's id; the page opens the copy,
    whose transcript ends with that reply (the later turn is not in it), and the sidebar
    lists the copy beside its source."""
    _require_browser()
    first = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert first.returncode == 0, first.stderr
    agent_sandbox.offer_codex_model()
    local = sandbox_hangar(agent_sandbox, "codex")
    try:
        with serve_local(local, TOKEN) as url:
            page = login(browser, url)
            open_task(page, "say hello")
            page.select_option("#model-picker", label="fake-model")
            play(agent_sandbox, {"text": "The later answer."})
            page.fill("#composer-input", "A later question")
            page.press("#composer-input", "Enter")
            messages = page.locator("#messages article.msg")
            expect(messages.filter(has_text="The later answer.")).to_have_count(1, timeout=SLOW)
            source_url = page.url
            first_reply = messages.filter(has_text="Hi from the fake model!").first
            first_reply.locator("button.copy-task").click()
            expect(page).not_to_have_url(source_url, timeout=SLOW)
            assert "localTaskId=" in page.url and "/runtime-tasks?deviceId=" in page.url
            expect(messages.last).to_contain_text("Hi from the fake model!", timeout=SLOW)
            expect(messages.filter(has_text="The later answer.")).to_have_count(0)
            expect(messages.filter(has_text="A later question")).to_have_count(0)
            sidebar = page.locator("#sidebar-content a.task")
            expect(sidebar.filter(has_text="say hello (copy)")).to_have_count(1, timeout=SLOW)
    finally:
        local.close()
