"""Search, archive and issues in a real browser against a real hub."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import LiveHub, screenshot

pytestmark = pytest.mark.browser


def test_search_opens_a_result_at_its_message(page: Any, live_hub: LiveHub) -> None:
    """RW-048/059: search, click a result, land on the matching message."""
    page.fill("#search-input", "zebra-needle")
    page.press("#search-input", "Enter")
    result = page.locator("#search-results .search-result")
    expect(result).to_have_count(1)
    expect(result.locator("mark")).to_have_text("zebra-needle")
    screenshot(page, "search")
    result.click()
    expect(page.locator("#task-title")).to_have_text("Set up the project")
    target = page.locator("#msg-142")
    expect(target).to_be_in_viewport()
    expect(target).to_contain_text("zebra-needle appears only here")


def test_archive_a_task_and_find_it_among_the_archived(page: Any, live_hub: LiveHub) -> None:
    """RW-157/161: archive with confirmation; the archived page lists it; unarchive."""
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    expect(page.locator("#task-title")).to_have_text("Say hello")
    page.click("#archive-button")
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text('Archive "Say hello"?')
    page.click("#confirm-ok")
    expect(page.locator("#sidebar-content a.task", has_text="Say hello")).to_have_count(0)
    page.click("nav >> text=Archived")
    item = page.locator(".archived-item", has_text="Say hello")
    expect(item).to_be_visible()
    expect(page.locator(".groups")).to_contain_text("beta · 1")
    screenshot(page, "archived")
    item.locator("button[data-action=unarchive]").click()
    expect(item).to_have_count(0)
    page.click("nav >> text=Runtime work")
    expect(page.locator("#sidebar-content a.task", has_text="Say hello")).to_be_visible()


def test_delete_an_archived_task_after_confirming(page: Any, live_hub: LiveHub) -> None:
    """RW-173: delete asks first; cancelling keeps the task, confirming hides it at once."""
    page.locator("#sidebar-content a.task", has_text="Work on feature x").click()
    page.click("#archive-button")
    page.click("#confirm-ok")
    expect(page.locator("#sidebar-content a.task", has_text="Work on feature x")).to_have_count(0)
    page.goto(live_hub.url + "/archived")
    item = page.locator(".archived-item", has_text="Work on feature x")
    item.locator("button[data-action=delete]").click()
    expect(page.locator("#confirm-dialog")).to_contain_text('Delete "Work on feature x"?')
    page.keyboard.press("Escape")
    expect(page.locator("#confirm-dialog")).to_be_hidden()
    expect(item).to_be_visible()
    item.locator("button[data-action=delete]").click()
    page.click("#confirm-ok")
    expect(item).to_have_count(0)
    page.reload()
    expect(page.locator(".archived-item", has_text="Work on feature x")).to_have_count(0)


def test_rename_with_the_keyboard(page: Any, live_hub: LiveHub) -> None:
    page.locator("#sidebar-content a.task", has_text="Say hello").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#task-title")).to_have_text("Say hello")
    page.click("#rename-button")
    page.fill("#confirm-input", "Greeting")
    page.keyboard.press("Enter")
    expect(page.locator("#task-title")).to_have_text("Greeting")
    expect(page.locator("#sidebar-content a.task", has_text="Greeting")).to_be_visible()


def test_create_an_issue_and_comment_on_it(page: Any, live_hub: LiveHub) -> None:
    page.click("nav >> text=Issues")
    page.click("#new-issue")
    page.fill("#title", "Ship the <hub>")
    page.fill("#description", "It needs **tests**.\n\n<script>window.pwned = 1</script>")
    page.select_option("#priority", "high")
    page.fill("#labels", "hub, ui")
    page.click("button[type=submit].primary")
    expect(page).to_have_url(live_hub.url + "/issues/HGR-1")
    expect(page.locator("#issue-title")).to_have_text("Ship the <hub>")
    expect(page.locator("#description strong")).to_have_text("tests")
    assert page.evaluate("window.pwned") is None
    page.fill("#comment-body", "First comment")
    page.click(".new-comment button[type=submit]")
    comment = page.locator(".comment", has_text="First comment")
    expect(comment).to_be_visible()
    comment.locator("details.reply > summary").click()
    comment.locator("textarea").fill("A threaded reply")
    comment.locator("details.reply button[type=submit]").click()
    reply = page.locator(".comment .comments .comment", has_text="A threaded reply")
    expect(reply).to_be_visible()
    screenshot(page, "issue")
    page.click("#edit-issue")
    page.select_option("#status", "in_progress")
    page.click("button[type=submit].primary")
    expect(page.locator(".meta")).to_contain_text("in progress")
    page.click("nav >> text=Issues")
    row = page.locator("table.issues tbody tr", has_text="HGR-1")
    expect(row).to_contain_text("in progress")
    expect(row).to_contain_text("hub")
    screenshot(page, "issues")


def test_narrow_screens_get_a_sidebar_toggle(page: Any, live_hub: LiveHub) -> None:
    page.set_viewport_size({"width": 420, "height": 800})
    page.goto(live_hub.url + "/runtime-tasks")
    expect(page.locator("#sidebar")).not_to_be_in_viewport()
    page.click("#sidebar-toggle")
    expect(page.locator("#sidebar")).to_be_in_viewport()
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    expect(page.locator("#task-title")).to_have_text("Say hello")
    expect(page.locator("#messages article.msg").last).to_contain_text("Hello!")
    screenshot(page, "narrow")


def test_dark_mode_follows_the_system(page: Any, live_hub: LiveHub) -> None:
    page.emulate_media(color_scheme="dark")
    page.locator("#sidebar-content a.task", has_text="Set up the project").click()
    expect(page.locator("#checklist-strip")).to_be_visible()
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(15, 18, 22)"
    screenshot(page, "runtime-work-dark")
