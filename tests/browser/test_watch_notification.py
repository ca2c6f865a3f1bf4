"""Watching a task: a browser notification when its reply is final, for that task only."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import LiveHub

pytestmark = pytest.mark.browser

# Records each notification the page raises (the browser's own Notification, wrapped) and
# every runtime.tasks.updated the hub sends.
RECORDER = """
(() => {
  const Real = window.Notification;
  window.__notified = [];
  window.__updates = [];
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notified.push({title, body: options && options.body});
    }
  };
  const events = new EventSource("/api/events");
  events.addEventListener(
    "runtime.tasks.updated", (e) => window.__updates.push(JSON.parse(e.data))
  );
})();
"""


def test_a_watched_task_raises_a_browser_notification(page: Any, live_hub: LiveHub) -> None:
    """The Watch button: a final reply of the watched task raises one notification with its
    title, status and reply; another task's final reply raises none."""
    page.context.grant_permissions(["notifications"], origin=live_hub.url)
    page.add_init_script(RECORDER)
    page.reload()
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    expect(page.locator("#task-title")).to_have_text("Say hello")
    watch = page.locator("#watch-button")
    watch.click()
    expect(watch).to_have_attribute("aria-pressed", "true")

    live_hub.sessions["long"].user("One more question").assistant("One more answer.")
    page.wait_for_function("() => window.__updates.some(u => u.content === 'One more answer.')")
    live_hub.sessions["short"].user("Say it again").assistant("Hello again!")
    page.wait_for_function("() => window.__notified.length > 0")
    notified = page.evaluate("window.__notified")
    assert notified == [{"title": "Say hello · done", "body": "Hello again!"}]
