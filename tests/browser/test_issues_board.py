"""Issues on the demo, in a real browser: the board (a column per status, drag a card or use
its status menu from the keyboard), GFM task lists as checkboxes, sub-issues on the parent,
status and assignee changed in place, and comment authors shown by the member's name."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import DemoTab

pytestmark = pytest.mark.browser


def _api_status(page: Any, key: str) -> str:
    status: str = page.evaluate(
        "async (key) => (await (await fetch('/api/issues/' + key)).json()).status", key
    )
    return status


def test_board_columns_drag_and_keyboard(demo_view: Any) -> None:
    page = demo_view
    page.goto(page.url.replace("/runtime-tasks", "/issues"))
    page.locator("#board-view").click()
    page.wait_for_url(re.compile(r"view=board"))
    columns = page.locator(".board-column")
    expect(columns).to_have_count(6)
    statuses = columns.evaluate_all("els => els.map(e => e.dataset.status)")
    assert statuses == ["backlog", "todo", "in_progress", "in_review", "done", "cancelled"]
    card = page.locator(".card", has_text="Terraform module")
    key = card.get_attribute("data-issue-key")
    expect(
        page.locator('.board-column[data-status="backlog"] .card', has_text="Terraform")
    ).to_be_visible()

    card.drag_to(page.locator('.board-column[data-status="todo"]'))
    moved = page.locator('.board-column[data-status="todo"] .card', has_text="Terraform")
    expect(moved).to_be_visible()
    expect(page.locator("#board-status")).to_have_text(f"{key} moved to todo.")
    expect(page.locator('.board-column[data-status="todo"] h2 .count')).to_have_text("2")
    assert _api_status(page, key) == "todo"

    select = moved.locator(".card-status")  # the keyboard way: focus the menu, pick a status
    select.focus()
    page.keyboard.press("ArrowDown")  # a closed <select> changes on arrow keys
    expect(
        page.locator('.board-column[data-status="in_progress"] .card', has_text="Terraform")
    ).to_be_visible()
    assert _api_status(page, key) == "in_progress"
    in_progress = page.locator(
        '.board-column[data-status="in_progress"] .card', has_text="Terraform"
    )
    expect(in_progress.locator(".card-status")).to_be_focused()  # focus follows the card

    page.reload()  # the move was stored, not only drawn
    expect(
        page.locator('.board-column[data-status="in_progress"] .card', has_text="Terraform")
    ).to_be_visible()
    page.locator(".card", has_text="Terraform").locator(".card-status").select_option("backlog")
    expect(
        page.locator('.board-column[data-status="backlog"] .card', has_text="Terraform")
    ).to_be_visible()


def test_task_lists_sub_issues_and_fields_in_place(demo_view: Any, demo_tab: DemoTab) -> None:
    page = demo_view
    page.goto(demo_tab.url + "/issues")
    page.locator("a.issue-title", has_text="Terraform module").click()
    boxes = page.locator("#description input.task-list-item-checkbox")
    expect(boxes).to_have_count(3)
    expect(boxes.nth(0)).to_be_checked()
    expect(boxes.nth(1)).not_to_be_checked()
    expect(boxes.nth(0)).to_be_disabled()
    expect(page.locator("#description")).not_to_contain_text("[x]")
    expect(page.locator("#description label", has_text="versioning on")).to_be_visible()

    page.goto(demo_tab.url + "/issues")
    page.locator("a.issue-title", has_text="Checkout: reserve stock").click()
    children = page.locator("#sub-issues li")
    expect(children).to_have_count(1)
    expect(children.first).to_contain_text("Document the checkout steps")
    expect(children.first.locator(".status")).to_have_text("todo")

    key = page.locator("#issue").get_attribute("data-issue-key")
    page.select_option("#issue-status", "in_review")
    expect(page.locator("#issue-saved")).to_have_text("Saved.")
    assert _api_status(page, key) == "in_review"
    owner = page.locator("#issue-assignee option").nth(1)
    name = owner.inner_text()
    page.select_option("#issue-assignee", label=name)
    expect(page.locator("#issue-saved")).to_have_text("Saved.")
    page.reload()
    expect(page.locator("#issue-status")).to_have_value("in_review")
    expect(page.locator("#issue-assignee option:checked")).to_have_text(name)
    page.goto(demo_tab.url + "/issues")
    row = page.locator("tr[data-issue-key]", has_text="Checkout: reserve stock")
    expect(row.locator(".assignee")).to_have_text(name)
    page.goto(demo_tab.url + f"/issues/{key}")
    page.select_option("#issue-assignee", "")
    expect(page.locator("#issue-saved")).to_have_text("Saved.")
    page.select_option("#issue-status", "in_progress")
    expect(page.locator("#issue-saved")).to_have_text("Saved.")


def test_comment_authors_are_members_by_name(demo_view: Any, demo_tab: DemoTab) -> None:
    page = demo_view
    members = page.evaluate("async () => (await (await fetch('/api/members')).json())")
    names = {m["name"] for m in members["members"]}
    ids = {m["id"] for m in members["members"]}
    page.goto(demo_tab.url + "/issues")
    page.locator("a.issue-title", has_text="cart_total").click()
    authors = page.locator(".comment-head strong").all_inner_texts()
    assert authors and set(authors) <= names
    assert not set(authors) & ids


def test_issue_authors_are_members_by_name(demo_view: Any, demo_tab: DemoTab) -> None:
    """The list and the issue page show who opened an issue by the member's name, never an id."""
    page = demo_view
    members = page.evaluate("async () => (await (await fetch('/api/members')).json())")
    owner = next(m for m in members["members"] if m["role"] == "owner")
    page.goto(demo_tab.url + "/issues")
    row = page.locator("tr[data-issue-key]", has_text="cart_total").first
    expect(row.locator(".issue-author")).to_have_text(f"by {owner['name']}")
    row.locator("a.issue-title").click()
    expect(page.locator("#issue-author")).to_contain_text(owner["name"])
    assert owner["id"] not in page.locator("#issue-author").inner_text()
