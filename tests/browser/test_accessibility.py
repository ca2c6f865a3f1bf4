"""Accessibility of the main views of the demo, checked by axe-core in a real browser: no
serious or critical violation (contrast included) in the light and the dark theme, wide and
at 400 px (where no view may scroll sideways either)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import DemoTab, screenshot

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
BLOCKING = ("serious", "critical")


def _axe_source() -> str:
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, "the vendored axe-core changed"
    return data.decode("utf-8")


def _violations(page: Any) -> list[str]:
    """Serious and critical axe violations of the page as it is now (one line each)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(
            _axe_source()
        )  # through the DevTools protocol: the page's CSP allows no inline script
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )
    lines = []
    for v in found:
        if v["impact"] in BLOCKING:
            targets = [json.dumps(n["target"]) for n in v["nodes"][:4]]
            summary = v["nodes"][0].get("failureSummary", "").replace("\n", " ")[:200]
            lines.append(f"{v['id']} ({v['impact']}): {', '.join(targets)} — {summary}")
    return lines


def _views(page: Any, url: str) -> list[tuple[str, Any]]:
    def drawer() -> None:  # a narrow window shows the task list in a drawer
        if page.evaluate("document.getElementById('sidebar').inert"):
            page.locator("#sidebar-toggle").click()

    def runtime_empty() -> None:
        page.goto(url + "/runtime-tasks")

    def runtime_task() -> None:
        page.goto(url + "/runtime-tasks")
        drawer()
        page.locator("#sidebar-content a.task", has_text="cart_total").first.click()
        expect(page.locator("#messages article.msg").first).to_be_visible()
        page.wait_for_function("() => document.getElementById('status-line').textContent === ''")

    def search() -> None:
        page.goto(url + "/runtime-tasks")
        drawer()
        page.fill("#search-input", "the")
        page.press("#search-input", "Enter")
        expect(page.locator("#search-results .search-count")).to_be_visible()
        page.locator("#search-results .search-more").first.click()

    def shortcuts() -> None:
        page.goto(url + "/runtime-tasks")
        page.locator("#transcript").focus()
        page.keyboard.press("?")
        expect(page.locator("#keys-dialog")).to_be_visible()

    def issues() -> None:
        page.goto(url + "/issues")

    def board() -> None:
        page.goto(url + "/issues?view=board")

    def issue() -> None:
        page.goto(url + "/issues")
        page.locator("a.issue-title", has_text="Checkout: reserve stock").click()
        expect(page.locator("#sub-issues")).to_be_visible()

    def issue_with_run() -> None:
        page.goto(url + "/issues")
        page.locator("a.issue-title", has_text="cart_total").click()
        expect(page.locator("#local-runs")).to_be_visible()

    def usage() -> None:
        page.goto(url + "/usage")

    return [
        ("runtime", runtime_empty),
        ("transcript", runtime_task),
        ("search", search),
        ("shortcuts", shortcuts),
        ("issues", issues),
        ("board", board),
        ("issue", issue),
        ("issue-run", issue_with_run),
        ("usage", usage),
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 400])
def test_main_views_have_no_serious_violations(
    demo_view: Any, demo_tab: DemoTab, theme: str, width: int
) -> None:
    page = demo_view
    page.emulate_media(color_scheme=theme)
    page.set_viewport_size({"width": width, "height": 800})
    problems: dict[str, list[str]] = {}
    for name, show in _views(page, demo_tab.url):
        show()
        if theme == "light" or width > 400:  # light and dark, and light at 400 px
            suffix = ("" if theme == "light" else "-dark") + ("-400" if width == 400 else "")
            screenshot(page, f"view-{name}{suffix}")
        found = _violations(page)
        if width == 400 and page.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth"
        ):
            found.append("the page scrolls sideways at 400 px")
        if found:
            problems[name] = found
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)
