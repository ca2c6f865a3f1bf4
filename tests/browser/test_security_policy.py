"""The pages work under the hub's Content-Security-Policy (hardening item 10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import LiveHub
from .test_composer import png

pytestmark = pytest.mark.browser

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def violations(page: Any) -> list[str]:
    found: list[str] = page.evaluate("window.__cspViolations || []")
    return found


def test_hardening_10_no_page_is_blocked_by_the_content_security_policy(
    page: Any, live_hub: LiveHub, tmp_path: Path
) -> None:
    """Every page, its scripts, styles, live updates, dialogs and the composer's image preview
    (a ``blob:`` URL) run with nothing blocked."""
    auth = {"Authorization": f"Bearer {live_hub.token}"}
    with httpx.Client(base_url=live_hub.url, headers=auth, trust_env=False, timeout=30) as http:
        issue = http.post(
            "/api/issues", json={"title": "Checked", "description": "Some **text**."}
        ).json()
        run = http.post(f"/api/issues/{issue['key']}/local-runs", json={"cliName": "codex"})
        run_id = run.json()["id"]
        http.post(
            f"/api/local-runs/{run_id}/messages",
            json={"type": "text", "sourceKey": "m1", "content": "working on it"},
        )
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.context.add_init_script(RECORD_VIOLATIONS)
    seen: dict[str, list[str]] = {}

    page.goto(live_hub.url + "/login")
    expect(page.locator("#token")).to_be_visible()
    seen["login"] = violations(page)
    page.goto(live_hub.url + "/runtime-tasks")
    page.locator("#sidebar-content a.task", has_text="Set up the project").click()
    expect(page.locator("#checklist-strip")).to_be_visible()
    image = tmp_path / "shot.png"
    image.write_bytes(png(width=6, height=4))
    page.set_input_files("#attach-input", str(image))
    thumb = page.locator("#attachment-previews .attachment-chip img")
    expect(thumb).to_have_count(1)
    page.wait_for_function("() => document.querySelector('#attachment-previews img').complete")
    assert thumb.evaluate("img => img.naturalWidth") == 6  # 0 when the policy blocks it
    page.fill("#search-input", "zebra-needle")
    page.press("#search-input", "Enter")
    expect(page.locator("#search-results .search-result")).to_have_count(1)
    page.click("#rename-button")
    expect(page.locator("#confirm-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    seen["runtime"] = violations(page)
    page.goto(live_hub.url + "/archived")
    seen["archived"] = violations(page)
    page.goto(live_hub.url + "/issues")
    expect(page.locator("table.issues")).to_contain_text("Checked")
    seen["issues"] = violations(page)
    page.goto(live_hub.url + f"/issues/{issue['key']}")
    expect(page.locator(".run-log")).to_contain_text("working on it")
    seen["issue"] = violations(page)
    page.goto(live_hub.url + "/issues/new")
    seen["new issue"] = violations(page)

    assert all(not found for found in seen.values()), seen
    assert not [text for text in console if "Content Security Policy" in text], console
