"""What ``hangar serve --demo`` shows a new user (hardening item 19).

With ``HANGAR_UPDATE_SCREENSHOTS=1`` these tests write the README's screenshots,
``docs/screenshots/runtime-work.png`` and ``demo-issue.png``, from the demo.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import DemoHub, screenshot

pytestmark = pytest.mark.browser


def test_hardening_19_the_readme_screenshot_is_what_the_demo_shows(demo_page: Any) -> None:
    # The demo session whose latest turn has the agent's todo list (OpenCode's todowrite).
    demo_page.locator("#sidebar-content a.task", has_text="Draft the bucket module").click()
    expect(demo_page.locator("#task-title")).to_have_text("Draft the bucket module")
    expect(demo_page.locator("#checklist-strip")).to_be_visible()
    expect(demo_page.locator("#messages article.msg").last).to_be_visible()
    expect(demo_page.locator("#status-line")).to_have_text("")
    screenshot(demo_page, "runtime-work")


def test_hardening_19_the_demo_issues_page_starts_with_sample_issues(
    demo_page: Any, demo_hub: DemoHub
) -> None:
    demo_page.click("nav >> text=Issues")
    rows = demo_page.locator("table.issues tbody tr")
    expect(rows).to_have_count(4)
    rows.filter(has_text="Add a cart_total helper").locator("a").first.click()
    run = demo_page.locator("#local-runs li.run").first
    expect(run).to_contain_text("codex")
    expect(run.locator(".run-status")).to_have_text("completed")
    expect(run.locator(".run-log")).to_contain_text("cat shop/catalog.py")
    expect(demo_page.locator("#comments")).to_contain_text("Integer cents, please")
    demo_page.reload()  # the outbox has made the run's comment thread by now, or soon
    expect(demo_page.locator("#comments")).to_contain_text("Started local codex run")
    expect(demo_page.locator("#comments")).to_contain_text(
        "Added cart_total(items) to shop/cart.py"
    )
    screenshot(demo_page, "demo-issue")


def test_hardening_19_every_page_has_a_favicon(demo_page: Any, demo_hub: DemoHub) -> None:
    icon = demo_page.locator("link[rel=icon]")
    expect(icon).to_have_attribute("href", "/static/favicon.svg")
    answer = demo_page.evaluate(
        """async () => {
          const direct = await fetch("/static/favicon.svg");
          const legacy = await fetch("/favicon.ico");
          return [direct.status, direct.headers.get("content-type"), legacy.status,
                  legacy.headers.get("content-type")];
        }"""
    )
    assert answer[0] == 200 and answer[1].startswith("image/svg+xml")
    assert answer[2] == 200 and answer[3].startswith("image/svg+xml")
