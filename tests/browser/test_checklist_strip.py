"""The checklist strip in a real browser follows the latest turn of a growing session."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import LiveHub

pytestmark = pytest.mark.browser
LIVE = 20_000


def test_the_strip_shows_only_the_latest_turns_list(page: Any, live_hub: LiveHub) -> None:
    """CL-011, CL-032, CL-060, CL-064, CL-069: a turn that writes a list brings the strip
    (read-only, collapsible from the keyboard); the next turn without a list takes it away
    again without a reload, while the older list stays on its own message."""
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    expect(page.locator("#messages article.msg").last).to_contain_text("Hello!")
    strip = page.locator("#checklist-strip")
    expect(strip).to_have_count(0)
    page.evaluate("window.__notReloaded = true")

    session = live_hub.sessions["short"]
    session.user("Plan the release").todos(
        [("Tag the release", "completed"), ("Publish notes", "in_progress")]
    )
    session.assistant("Planned.")
    expect(strip).to_contain_text("Publish notes", timeout=LIVE)
    expect(strip.locator("summary")).to_contain_text("1/2 done")
    summary = strip.locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(strip.locator(".checklist-items")).to_be_hidden()
    page.keyboard.press("Enter")
    expect(strip.locator(".checklist-items")).to_be_visible()

    session.user("Thanks!").assistant("You're welcome.")
    expect(page.locator("#messages article.msg").last).to_contain_text(
        "You're welcome.", timeout=LIVE
    )
    expect(strip).to_have_count(0)
    expect(page.locator("#messages .checklist-inline")).to_contain_text("Publish notes")
    assert page.evaluate("window.__notReloaded") is True
