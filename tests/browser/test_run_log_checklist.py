"""A provider's checklist in an issue's local-run log, in a real browser."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import LiveHub

pytestmark = pytest.mark.browser


def test_a_checklist_update_shows_as_the_agents_list(page: Any, live_hub: LiveHub) -> None:
    """A checklist text (`input.kind = checklist`, as the providers report it) shows in the
    run's log as the agent's items with their status, and arrives without a reload."""
    headers = {"Authorization": f"Bearer {live_hub.token}"}
    with httpx.Client(base_url=live_hub.url, headers=headers, trust_env=False) as api:
        key = api.post("/api/issues", json={"title": "Plan it"}).json()["key"]
        run = api.post(
            f"/api/issues/{key}/local-runs", json={"cliName": "opencode", "sourceKey": "r1"}
        ).json()
        page.goto(f"{live_hub.url}/issues/{key}")
        expect(page.locator(f"#run-{run['id']}")).to_be_visible()
        page.evaluate("window.__notReloaded = true")
        checklist = {
            "source": "opencode",
            "items": [
                {"content": "Write the marker", "status": "completed"},
                {"content": "Check it", "status": "in_progress"},
            ],
        }
        posted = api.post(
            f"/api/local-runs/{run['id']}/messages",
            json={
                "type": "text",
                "source": "opencode-server",
                "sourceKey": "session:s1:checklist:e1",
                "content": "- [x] Write the marker\n- [~] Check it",
                "input": {"kind": "checklist", "checklist": checklist, "session_id": "s1"},
            },
        )
        assert posted.status_code < 300, posted.text
    entry = page.locator(f"#run-{run['id']} .run-log li.run-msg-checklist")
    expect(entry).to_have_count(1, timeout=20_000)
    expect(entry.locator(".run-msg-type")).to_have_text("checklist")
    items = entry.locator("li.cl")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_have_class("cl cl-completed")
    expect(items.nth(0)).to_contain_text("Write the marker")
    expect(items.nth(1)).to_have_class("cl cl-in_progress")
    expect(items.nth(1)).to_contain_text("Check it")
    assert page.evaluate("window.__notReloaded") is True
