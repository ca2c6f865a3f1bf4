"""Skill and plugin tags in a message sent from the composer to a real Codex (in the sandbox):
Codex records the message as plain text; after the reply, and again after the hub restarts
and the task is reopened, the message shows its tags, never the raw ``$…``/``@…`` tokens."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.hub_thread import serve_local

from .test_composer import SLOW, TOKEN, browser, login, open_task, play, sandbox_hangar

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]
__all__ = ["browser"]  # the fixture, used by name

MESSAGE = "Run $review:security on the parser, then ask @Figma for the icons."


def _user(page: Any) -> Any:
    return page.locator("#messages article.msg-user", has_text="on the parser").last


def test_tags_survive_the_finished_turn_and_a_reopen(
    agent_sandbox: AgentSandbox, hangar_home: Path, browser: Any
) -> None:
    """RW-231, RW-232, RW-233, RW-236: the executor keeps only the tags (no second copy of
    the text); the body is Codex's own text; reopening the finished task shows the tags."""
    first = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert first.returncode == 0, first.stderr
    agent_sandbox.offer_codex_model()
    play(agent_sandbox, {"text": "Reviewed; icons requested."})
    local = sandbox_hangar(agent_sandbox, "codex")
    try:
        with serve_local(local, TOKEN) as url:
            page = login(browser, url)
            open_task(page, "say hello")
            page.select_option("#model-picker", label="fake-model")
            page.fill("#composer-input", MESSAGE)
            page.press("#composer-input", "Enter")
            reply = page.locator("#messages article.msg-assistant", has_text="icons requested")
            expect(reply).to_be_visible(timeout=SLOW)
            user = _user(page)
            expect(user.locator(".ref-tag")).to_have_text(["review:security", "Figma"])
            expect(user.locator(".ref-skill")).to_have_attribute("title", "skill:review:security")
            expect(user.locator(".ref-plugin")).to_have_attribute("title", "plugin:Figma")
            body = user.locator(".md").inner_text()
            assert "$review:security" not in body and "@Figma" not in body
            assert "Run" in body and "on the parser, then ask" in body
    finally:
        local.close()
    rollout = next(agent_sandbox.host(agent_sandbox.homes.home).rglob("rollout-*.jsonl"))
    assert MESSAGE in rollout.read_text()  # Codex holds the plain text: the only body
    with sqlite3.connect(hangar_home / "executor.db") as db:
        rows = db.execute("SELECT refs FROM user_message_presentations").fetchall()
    assert len(rows) == 1
    stored = json.loads(rows[0][0])
    assert stored == [
        {"token": "$review:security", "href": "skill:review:security"},
        {"token": "@Figma", "href": "plugin:Figma"},
    ]
    assert "on the parser" not in rows[0][0]  # never a second copy of the text

    reopened = sandbox_hangar(agent_sandbox, "codex")  # a new process: nothing in memory
    try:
        with serve_local(reopened, TOKEN) as url:
            page = login(browser, url)
            open_task(page, "say hello")
            expect(_user(page).locator(".ref-tag")).to_have_text(["review:security", "Figma"])
    finally:
        reopened.close()
