"""Every task of the bundled demo opens in a real browser without a script error."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect, sync_playwright

from hangar.hub.demo import demo_corpus

from .conftest import CHROMIUM, CHROMIUM_ARGS, _require_browser, running_hub, screenshot

pytestmark = pytest.mark.browser


def test_the_demo_renders_every_task(tmp_path: Path) -> None:
    """RW-005/015/320: Projects and Conversations of the demo, every transcript opens."""
    _require_browser()
    try:
        demo_corpus()
    except Exception as exc:  # a checkout without the generated corpus
        pytest.skip(str(exc))
    with running_hub("--demo") as hub, sync_playwright() as playwright:
        token = re.search(r"demo token: (\S+)", "".join(hub.output))
        assert token
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(20_000)
        errors: list[str] = []
        try:
            page: Any = context.pages[0] if context.pages else context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(hub.url + "/login")
            page.fill("#token", token.group(1))
            page.press("#token", "Enter")
            page.wait_for_url("**/runtime-tasks")
            conversations = page.locator("details[data-section=conversations] a.task")
            expect(conversations).not_to_have_count(0)
            links = page.locator("#sidebar-content a.task")
            titles = [links.nth(i).get_attribute("data-title") for i in range(links.count())]
            assert len(titles) >= 5
            for title in titles:
                page.locator("#sidebar-content a.task", has_text=title or "").first.click()
                expect(page.locator("#messages article.msg").first).to_be_visible()
                expect(page.locator("#status-line")).to_have_text("")
            assert page.locator("details.tool").count() + page.locator(".md").count() > 0
            first = titles[0] or ""
            page.locator("#sidebar-content a.task", has_text=first).first.click()
            expect(page.locator("#messages article.msg").first).to_be_visible()
            screenshot(page, "demo")
        finally:
            context.close()
    assert errors == []
