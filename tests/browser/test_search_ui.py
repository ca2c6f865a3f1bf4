"""Sidebar search on the demo, in a real browser: results grouped per task with the agent,
project and time, more matches one click away, snippets without tool names, a loading state,
keys (/ ↓ ↑ j k Enter Esc) and the agent, project, date and order filters."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def _search(page: Any, query: str) -> Any:
    page.fill("#search-input", query)
    page.press("#search-input", "Enter")
    groups = page.locator("#search-results .search-group")
    expect(page.locator("#search-results .search-count")).to_be_visible()
    return groups


def _titles(page: Any) -> list[str]:
    titles: list[str] = page.locator("#search-results .search-group strong").all_inner_texts()
    return titles


def test_results_are_grouped_per_task_with_agent_project_and_time(demo_view: Any) -> None:
    page = demo_view
    held: list[Any] = []
    page.route("**/api/runtime-work/search", lambda route: held.append(route))
    page.fill("#search-input", "cart")
    page.press("#search-input", "Enter")
    expect(page.locator("#search-results .search-loading")).to_have_text("Searching…")
    expect(page.locator("#search-results")).to_have_attribute("aria-busy", "true")
    while not held:
        page.wait_for_timeout(20)
    held[0].continue_()
    page.unroute("**/api/runtime-work/search")
    group = page.locator("#search-results .search-group").first
    expect(group.locator("strong")).to_have_text(re.compile("cart_total"))
    meta = group.locator(".search-meta")
    expect(meta.locator(".search-agent")).to_have_text("Codex")
    expect(meta.locator(".search-project")).to_have_text("webshop")
    expect(meta.locator("time")).to_have_attribute("title", re.compile(r"\d"))
    expect(meta.locator("time")).to_have_text(re.compile(r"ago|just now"))
    expect(page.locator("#search-results")).not_to_have_attribute("aria-busy", "true")
    more = group.locator(".search-more")
    expect(more).to_have_text(re.compile(r"^\d+ more match"))
    count = int(more.inner_text().split()[0])
    matches = group.locator(".search-match")
    expect(matches.first).to_be_hidden()
    more.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    expect(matches).to_have_count(min(count, 4))
    expect(matches.first.locator("mark").first).to_have_text(re.compile("cart", re.I))
    index = matches.first.get_attribute("data-index")
    matches.first.click()
    page.wait_for_url(re.compile(r"localTaskId="))
    expect(page.locator(f"#msg-{index}")).to_be_visible()


def test_snippets_show_the_command_not_the_tool_name(demo_view: Any) -> None:
    page = demo_view
    _search(page, "catalog")
    snippets = page.locator("#search-results .search-result .snippet")
    expect(snippets.first).to_contain_text("catalog")
    for text in snippets.all_inner_texts():
        assert "exec_command" not in text and "shell_command" not in text


def test_keys_focus_move_open_and_close(demo_view: Any) -> None:
    page = demo_view
    page.locator("#transcript").focus()
    page.keyboard.press("/")
    expect(page.locator("#search-input")).to_be_focused()
    page.keyboard.type("the")
    page.keyboard.press("Enter")
    hits = page.locator("#search-results .search-result")
    expect(hits.nth(2)).to_be_visible()
    page.keyboard.press("ArrowDown")
    expect(hits.nth(0)).to_be_focused()
    page.keyboard.press("j")
    expect(hits.nth(1)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(hits.nth(2)).to_be_focused()
    page.keyboard.press("k")
    expect(hits.nth(1)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(hits.nth(0)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(page.locator("#search-input")).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("j")
    title = hits.nth(1).locator("strong").inner_text()
    index = hits.nth(1).get_attribute("data-index")
    page.keyboard.press("Enter")
    expect(page.locator("#task-title")).to_have_text(title)
    if index:
        expect(page.locator(f"#msg-{index}")).to_be_in_viewport()
    hits.nth(0).focus()
    page.keyboard.press("Escape")
    expect(page.locator("#search-results")).to_be_hidden()
    expect(page.locator("#search-input")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#search-input")).to_have_value("")


def test_filters_by_agent_project_date_and_order(demo_view: Any) -> None:
    page = demo_view
    _search(page, "the")
    everything = _titles(page)
    assert len(everything) >= 4
    page.locator("#search-form .search-filters > summary").click()
    page.select_option("#search-agent", label="Claude Code")
    expect(page.locator("#search-results .search-count")).to_be_visible()
    expect(page.locator("#search-results .search-agent").first).to_have_text("Claude Code")
    agents = set(page.locator("#search-results .search-agent").all_inner_texts())
    assert agents == {"Claude Code"}
    page.select_option("#search-agent", value="")
    page.select_option("#search-project", label="infra")
    expect(page.locator("#search-results .search-count")).to_be_visible()
    expect(page.locator("#search-results .search-group")).not_to_have_count(len(everything))
    assert set(page.locator("#search-results .search-project").all_inner_texts()) == {"infra"}
    page.select_option("#search-project", value="")
    expect(page.locator("#search-results .search-group")).to_have_count(len(everything))
    page.select_option("#search-order", value="relevance")
    expect(page.locator("#search-results .search-group")).to_have_count(len(everything))
    assert sorted(_titles(page)) == sorted(everything)
    scores = page.evaluate(
        """async () => (await hangar.api("/api/runtime-work/search",
             {query: "the", order: "relevance"})).results.map(r => r.score)"""
    )
    assert scores == sorted(scores) and len(scores) == len(everything)  # best (lowest) first
    page.select_option("#search-order", value="date")
    page.fill("#search-from", "2099-01-01")
    page.dispatch_event("#search-from", "change")
    expect(page.locator("#search-results .search-count")).to_have_text("No matches.")
    page.fill("#search-from", "")
    page.fill("#search-to", "2026-11-30")
    page.dispatch_event("#search-to", "change")
    expect(page.locator("#search-results .search-count")).to_be_visible()
    expect(page.locator("#search-results .search-group")).not_to_have_count(len(everything))
    kept = page.locator("#search-results time").evaluate_all("els => els.map(e => e.dateTime)")
    assert kept and all(stamp < "2026-12-01" for stamp in kept)
