"""Keyboard navigation on the demo, in a real browser: j/k between messages, ] and [ between
turns, g/G to the first and last message, the shortcut sheet on ?, a visible focus ring, and
the closed 400 px drawer kept out of the tab order."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def _focused_index(page: Any) -> int:
    value = page.evaluate("() => document.activeElement.closest('article.msg')?.dataset.index")
    assert value is not None, "no message has focus"
    return int(value)


def _open(page: Any, title: str) -> list[int]:
    page.locator("#sidebar-content a.task", has_text=title).first.click()
    expect(page.locator("#messages article.msg").first).to_be_visible()
    page.wait_for_function("() => document.getElementById('status-line').textContent === ''")
    indexes: list[int] = page.locator("#messages article.msg").evaluate_all(
        "els => els.map(e => Number(e.dataset.index))"
    )
    return indexes


def test_j_k_g_and_G_move_between_messages(demo_view: Any) -> None:
    page = demo_view
    indexes = _open(page, "cart_total")
    assert len(indexes) >= 4
    page.locator("#transcript").focus()
    page.keyboard.press("g")
    assert _focused_index(page) == indexes[0]
    assert page.evaluate("document.getElementById('transcript').scrollTop") == 0
    page.keyboard.press("j")
    assert _focused_index(page) == indexes[1]
    page.keyboard.press("j")
    assert _focused_index(page) == indexes[2]
    page.keyboard.press("k")
    assert _focused_index(page) == indexes[1]
    focused = page.locator(f"#msg-{indexes[1]}")
    expect(focused).to_be_in_viewport()
    outline = focused.evaluate(
        "e => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineWidth"
    )
    assert outline.startswith("solid") and not outline.endswith(" 0px")  # focus is visible
    page.keyboard.press("G")
    assert _focused_index(page) == indexes[-1]
    expect(page.locator(f"#msg-{indexes[-1]}")).to_be_in_viewport()
    page.keyboard.press("j")  # already at the last message: it stays
    assert _focused_index(page) == indexes[-1]


def test_brackets_move_between_turns(demo_view: Any) -> None:
    page = demo_view
    _open(page, "cart_total")
    starts: list[int] = page.evaluate(
        """() => {
          const all = [...document.querySelectorAll('#messages > article.msg')];
          return all.filter((m, i) => i === 0 || (m.dataset.turnId || all[i - 1].dataset.turnId
            ? m.dataset.turnId !== all[i - 1].dataset.turnId
            : m.classList.contains('msg-user'))).map(m => Number(m.dataset.index));
        }"""
    )
    assert len(starts) >= 2, "the demo task should have several turns"
    users: list[int] = page.locator("#messages article.msg-user").evaluate_all(
        "els => els.map(e => Number(e.dataset.index))"
    )
    assert set(users) <= set(starts)  # each of the user's messages opens a turn
    page.locator("#transcript").focus()
    page.keyboard.press("g")
    page.keyboard.press("]")
    assert _focused_index(page) == starts[1]
    page.keyboard.press("[")
    assert _focused_index(page) == starts[0]


def test_question_mark_opens_the_shortcut_sheet(demo_view: Any) -> None:
    page = demo_view
    page.locator("#transcript").focus()
    page.keyboard.press("?")
    sheet = page.locator("#keys-dialog")
    expect(sheet).to_be_visible()
    expect(sheet.get_by_role("heading")).to_have_text("Keyboard shortcuts")
    for key in ("j", "k", "]", "[", "g", "G", "/", "Esc"):
        expect(sheet.locator("kbd", has_text=key).first).to_be_visible()
    page.keyboard.press("j")  # keys do nothing behind the sheet
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    page.fill("#search-input", "?")  # typing in a field is never a shortcut
    expect(sheet).to_be_hidden()
    page.locator("#keys-button").click()  # the sheet is also one click away
    expect(sheet).to_be_visible()
    sheet.get_by_role("button", name="Close").click()
    expect(sheet).to_be_hidden()


def test_closed_drawer_is_out_of_the_tab_order(demo_view: Any) -> None:
    page = demo_view
    page.set_viewport_size({"width": 400, "height": 800})
    expect(page.locator("#sidebar")).not_to_be_in_viewport()
    assert page.evaluate("document.getElementById('sidebar').inert")
    expect(page.locator("#sidebar-toggle")).to_have_attribute("aria-expanded", "false")
    visited = []
    for _ in range(12):
        page.keyboard.press("Tab")
        visited.append(page.evaluate("() => !!document.activeElement.closest('#sidebar')"))
    assert not any(visited)
    page.locator("#sidebar-toggle").click()
    expect(page.locator("#sidebar-toggle")).to_have_attribute("aria-expanded", "true")
    page.locator("#search-input").focus()
    expect(page.locator("#search-input")).to_be_focused()
    page.locator("#sidebar-content a.task").first.focus()
    page.keyboard.press("Escape")  # Esc closes the drawer and returns to its button
    expect(page.locator("#sidebar-toggle")).to_be_focused()
    assert page.evaluate("document.getElementById('sidebar').inert")
    page.locator("#transcript").focus()
    page.keyboard.press("/")  # search opens the drawer and focuses the box
    expect(page.locator("#search-input")).to_be_focused()
