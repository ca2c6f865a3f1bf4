"""A failed request shows as failed, with the provider's own detail (hardening item 17)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

FAILED_TITLE = "Write down the checkout steps in CHECKOUT.md"  # its last request got HTTP 400


def test_hardening_17_the_ui_marks_a_failed_task_and_shows_the_error_detail(
    demo_page: Any,
) -> None:
    link = demo_page.locator("#sidebar-content a.task", has_text=FAILED_TITLE)
    expect(link.locator(".failed")).to_be_visible()
    expect(link.locator(".failed")).to_have_attribute("aria-label", "failed")
    others = demo_page.locator("#sidebar-content a.task").filter(has_not_text=FAILED_TITLE)
    expect(others.locator(".failed")).to_have_count(0)
    link.click()
    last = demo_page.locator("#messages article.msg").last
    expect(last.locator(".msg-status")).to_have_text("failed")
    expect(last.locator(".error")).to_contain_text(
        "API Error: 400 fake model: scripted failure (the upstream model is unavailable)"
    )
