"""What the task pane shows and hides (hardening item 15)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import LiveHub

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 420])
def test_hardening_15_no_task_open_shows_no_task_actions(
    page: Any, live_hub: LiveHub, width: int
) -> None:
    """Rename and Archive exist only for an open task, on wide and narrow screens."""
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(live_hub.url + "/runtime-tasks")
    expect(page.locator("#placeholder")).to_be_visible()
    expect(page.locator("#rename-button")).to_be_hidden()
    expect(page.locator("#archive-button")).to_be_hidden()
    expect(page.locator("#task-title")).to_be_hidden()
    if width < 760:
        expect(page.locator("#sidebar-toggle")).to_be_visible()  # still reaches the task list
    else:
        expect(page.locator("#pane-header")).to_be_hidden()


def test_hardening_15_the_archive_dialog_has_no_title_box(page: Any, live_hub: LiveHub) -> None:
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    page.click("#archive-button")
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_contain_text('Archive "Say hello"?')
    expect(page.locator("#confirm-input")).to_be_hidden()
    expect(dialog.locator("label", has_text="Title")).to_be_hidden()
    page.keyboard.press("Escape")
    page.click("#rename-button")
    expect(page.locator("#confirm-input")).to_be_visible()  # the rename dialog has one
    expect(page.locator("#confirm-input")).to_have_value("Say hello")


def test_hardening_15_an_archived_open_task_offers_unarchive(page: Any, live_hub: LiveHub) -> None:
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    button = page.locator("#archive-button")
    expect(button).to_have_text("Archive")
    button.click()
    page.click("#confirm-ok")
    expect(page.locator("#sidebar-content a.task", has_text="Say hello")).to_have_count(0)
    expect(button).to_have_text("Unarchive")
    expect(page.locator("#archived-mark")).to_be_visible()
    page.reload()  # the task's own URL: the state comes from the hub, not from memory
    expect(page.locator("#task-title")).to_have_text("Say hello")
    expect(button).to_have_text("Unarchive")
    button.click()
    expect(button).to_have_text("Archive")
    expect(page.locator("#archived-mark")).to_be_hidden()
    expect(page.locator("#sidebar-content a.task", has_text="Say hello")).to_be_visible()
