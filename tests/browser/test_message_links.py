"""Links to messages in a real browser: a user message's link names the id Codex recorded for
it (``#user-<clientUserMessageId>``) and keeps opening that message when the transcript
changes under it; index links (``#msg-N``) keep working."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import expect

from hub.codex_sessions import CodexSession

from .conftest import _require_browser, logged_in_page, running_hub

pytestmark = pytest.mark.browser

THREAD = "0eee0000-1111-7222-8333-000000000005"
HIGHLIGHT = re.compile(r"\bhighlight\b")


def _write(home: Path, first_turn: int, last_turn: int) -> None:
    """The rollout with turns ``first_turn..last_turn`` (ids as the full history has them)."""
    session = CodexSession(home, THREAD, "/srv/app", turns=first_turn - 1)
    session.path.unlink(missing_ok=True)
    session.meta()
    for number in range(first_turn, last_turn + 1):
        session.turn(f"Question {number}", f"Answer {number}.")


def _client_id(number: int) -> str:
    return f"{THREAD[:8]}-turn-{number}-user"


@dataclass
class LinkHub:
    url: str
    token: str
    home: Path
    task_url: str


@pytest.fixture
def link_hub(isolated_home: Path, hangar_home: Path) -> Iterator[LinkHub]:
    _require_browser()
    _write(isolated_home, 1, 70)  # 140 messages: the first page holds only the last 50
    with running_hub() as hub:
        token = hub.token(hangar_home)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=hub.url, headers=headers, trust_env=False, timeout=30) as api:
            work = api.get("/api/runtime-work").json()
        tasks = [t for p in work["projects"] for t in p["tasks"]] + work["conversations"]
        task = next(t for t in tasks if t["runtimeHandle"].get("threadId") == THREAD)
        query = f"deviceId={quote(task['deviceId'])}&localTaskId={quote(task['localTaskId'])}"
        yield LinkHub(hub.url, token, isolated_home, f"{hub.url}/runtime-tasks?{query}")


@pytest.fixture
def tab(link_hub: LinkHub, tmp_path: Path) -> Iterator[Any]:
    with logged_in_page(link_hub.url, link_hub.token, tmp_path / "chromium-profile") as page:
        yield page


def _highlighted(page: Any, text: str) -> Any:
    exact = page.locator(".md", has_text=re.compile(rf"^\s*{text}\s*$"))
    message = page.locator("#messages article.msg-user", has=exact)
    expect(message).to_have_count(1)
    expect(message).to_have_class(HIGHLIGHT)
    expect(message).to_be_in_viewport()
    return message


def test_a_link_by_client_id_opens_its_message_after_indexes_shift(
    tab: Any, link_hub: LinkHub
) -> None:
    """RW-229: the user message's link is its clientUserMessageId; opened cold it loads the
    page around the message (outside the first page), and after the transcript was parsed
    anew with two turns fewer before it the same link opens the same message at its new
    index, while the index link it had before now points elsewhere."""
    tab.goto(link_hub.task_url)
    newest = tab.locator("#messages article.msg-user", has_text="Question 70")
    expect(newest).to_be_visible()
    assert newest.locator("a.index").get_attribute("href") == "#user-" + _client_id(70)
    reply = tab.locator("#messages article.msg-assistant", has_text="Answer 70.")
    assert reply.locator("a.index").get_attribute("href") == "#msg-139"  # no client id

    link = link_hub.task_url + "#user-" + _client_id(5)
    tab.goto(link)
    message = _highlighted(tab, "Question 5")
    assert message.get_attribute("data-index") == "8"
    expect(tab.locator("#messages .gap")).to_have_count(1)  # the tail page stays loaded
    expect(tab.locator("#messages article.msg-user", has_text="Question 70")).to_have_count(1)

    _write(link_hub.home, 3, 70)  # the file now starts at turn 3: every index moves by 4
    tab.goto("about:blank")
    tab.goto(link)
    moved = _highlighted(tab, "Question 5")
    assert moved.get_attribute("data-index") == "4"
    tab.goto(link_hub.task_url + "#msg-8")  # the old index link: now another message
    expect(tab.locator("#msg-8")).to_contain_text("Question 7")

    tab.locator("#msg-10 a.index").click()  # following a message's own link in the page
    assert tab.url.endswith("#user-" + _client_id(8))
    expect(tab.locator("#msg-10")).to_have_class(HIGHLIGHT)


def test_an_index_link_still_opens_its_message(tab: Any, link_hub: LinkHub) -> None:
    tab.goto(link_hub.task_url + "#msg-11")
    message = tab.locator("#msg-11")
    expect(message).to_contain_text("Answer 6.")
    expect(message).to_have_class(HIGHLIGHT)
    expect(message).to_be_in_viewport()
    tab.evaluate("location.hash = '#msg-60'")  # within the same open task
    expect(tab.locator("#msg-60")).to_contain_text("Question 31")
    expect(tab.locator("#msg-60")).to_have_class(HIGHLIGHT)


def test_a_link_to_a_message_not_in_the_task_says_so(tab: Any, link_hub: LinkHub) -> None:
    tab.goto(link_hub.task_url + "#user-gone-message")
    expect(tab.locator("#status-line")).to_contain_text("no user message 'gone-message'")
    expect(tab.locator("#messages article.msg").last).to_be_in_viewport()
    expect(tab.locator("#messages article.msg").last).to_contain_text("Answer 70.")
