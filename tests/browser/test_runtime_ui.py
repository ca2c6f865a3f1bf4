"""The runtime-work view in a real browser: sidebar, transcript, paging, checklist, live."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from .conftest import LiveHub, screenshot

pytestmark = pytest.mark.browser


def open_task(page: Any, title: str) -> None:
    page.locator("#sidebar-content a.task", has_text=title).click()
    expect(page.locator("#task-title")).to_have_text(title)


def test_login_open_a_task_and_see_its_checklist(page: Any, live_hub: LiveHub) -> None:
    """RW-005/010/031/323/333/334: sidebar groups, task URL by ids only, checklist strip."""
    sidebar = page.locator("#sidebar-content")
    expect(sidebar.locator("details[data-section=projects] > summary")).to_contain_text("Projects")
    expect(sidebar.locator("details[data-section=conversations]")).to_contain_text("Just a chat")
    expect(sidebar.locator(".project-name", has_text="alpha")).to_be_visible()
    expect(sidebar.locator("a.task", has_text="Work on feature x").locator(".wt")).to_be_visible()
    open_task(page, "Set up the project")
    query = parse_qs(urlparse(page.url).query)
    assert set(query) == {"deviceId", "localTaskId"}
    assert "/srv/projects" not in page.url
    expect(page.locator("#messages article.msg").last).to_contain_text("Found the zebra.")
    strip = page.locator("#checklist-strip")
    expect(strip).to_contain_text("Write the tests")
    expect(strip.locator("summary")).to_contain_text("1/3 done")
    max_height = page.eval_on_selector(
        "#checklist-strip .checklist-items", "el => getComputedStyle(el).maxHeight"
    )
    assert max_height == f"{0.45 * 800:g}px"
    screenshot(page, "runtime-work-sample")
    strip.locator("summary").click()
    expect(strip.locator(".checklist-items")).to_be_hidden()

    conversations = sidebar.locator("details[data-section=conversations]")
    conversations.locator("> summary").click()
    expect(conversations.locator("a.task")).to_be_hidden()
    page.reload()
    expect(page.locator("#task-title")).to_have_text("Set up the project")  # RW-335
    expect(page.locator("#messages article.msg").last).to_contain_text("Found the zebra.")
    expect(page.locator("details[data-section=conversations] a.task")).to_be_hidden()


def test_scrolling_up_pages_to_the_first_message(page: Any, live_hub: LiveHub) -> None:
    """Paging upward with beforeCursor until the first message."""
    open_task(page, "Set up the project")
    messages = page.locator("#messages article.msg")
    expect(messages.last).to_contain_text("Found the zebra.")
    first_count = messages.count()
    assert first_count == 50
    for _ in range(5):
        page.eval_on_selector("#transcript", "el => { el.scrollTop = 0; }")
        if page.locator("#msg-0").count():
            break
        expect(messages).not_to_have_count(first_count)
        first_count = messages.count()
    expect(page.locator("#msg-0")).to_contain_text("Set up the project")
    indexes = page.eval_on_selector_all(
        "#messages article.msg", "els => els.map(e => Number(e.dataset.index))"
    )
    assert indexes == list(range(len(indexes)))
    tool = page.locator("details.tool", has_text="ls -la")
    expect(tool.locator("> summary")).to_contain_text("Bash")
    expect(tool.locator(".tool-output")).to_be_hidden()
    tool.locator("> summary").click()
    expect(tool.locator(".tool-output")).to_contain_text("README.md")


def test_a_deep_link_to_a_message_leaves_a_gap_that_fills_when_seen(
    page: Any, live_hub: LiveHub
) -> None:
    """RW-089/090/093/095/096: a jump leaves a missing-range marker; it loads on sight."""
    open_task(page, "Set up the project")
    page.evaluate("location.hash = '#msg-3'")
    expect(page.locator("#msg-3")).to_be_visible()
    gap = page.locator("#messages .gap")
    expect(gap).to_have_count(1)
    assert gap.get_attribute("data-from") == "13"
    assert gap.get_attribute("data-to") == "93"
    screenshot(page, "missing-range")
    gap.scroll_into_view_if_needed()
    expect(gap).to_have_count(0)
    indexes = page.eval_on_selector_all(
        "#messages article.msg", "els => els.map(e => Number(e.dataset.index))"
    )
    assert indexes == list(range(144))
    page.reload()  # the deep link survives a reload (RW-335)
    expect(page.locator("#msg-3")).to_be_visible()
    expect(page.locator("#msg-3")).to_have_class(re.compile(r"\bhighlight\b"))


def test_a_growing_session_shows_new_messages_without_a_reload(
    page: Any, live_hub: LiveHub
) -> None:
    """The session watcher pushes an SSE event; the open transcript and the list refresh."""
    open_task(page, "Say hello")
    expect(page.locator("#messages article.msg").last).to_contain_text("Hello!")
    page.evaluate("window.__notReloaded = true")
    live_hub.sessions["short"].user("Are you still there?").assistant("Still here, live.")
    expect(page.locator("#messages article.msg").last).to_contain_text(
        "Still here, live.", timeout=20_000
    )
    assert page.evaluate("window.__notReloaded") is True
    new = ClaudeSessionFactory.make(live_hub)
    expect(page.locator("#sidebar-content a.task", has_text=new)).to_be_visible(timeout=20_000)


class ClaudeSessionFactory:
    @staticmethod
    def make(live_hub: LiveHub) -> str:
        from hub.sessions import ClaudeSession

        short = live_hub.sessions["short"]
        session = ClaudeSession(
            short.home, "55555555-eeee-4eee-8eee-000000000005", "/srv/projects/gamma"
        )
        session.user("A brand new session").assistant("New here.")
        return "A brand new session"
