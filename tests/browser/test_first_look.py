"""A long session the device has not read yet, opened in a real browser: its last turns are
on screen before the full parse ends, then the exact page (final indexes) replaces them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from core.test_executor_tasks import write_rollout  # tests/core, a sibling package
from core.test_transcript_engine import codex_turn
from hangar.executor.service import Executor
from hub.server_process import running_hub

from .conftest import LiveHub, _require_browser, logged_in_page

pytestmark = pytest.mark.browser

TURNS = 79
"""Two messages a turn: #0 … #157."""


@pytest.fixture
def unread_hub(isolated_home: Path, hangar_home: Path) -> Iterator[LiveHub]:
    """A hub over a 3 MB Codex session whose list entry and search index are current but
    whose turn table is not kept, as after an upgrade (a new hangar version ignores the
    tables an older one stored): nothing reads the file again until it is opened."""
    _require_browser()
    path = write_rollout(isolated_home, turns=2)
    turns = b"".join(codex_turn(n, output="z" * 40_000) for n in range(3, TURNS + 1))
    path.write_bytes(path.read_bytes() + turns)
    executor = Executor.open()
    executor.list_tasks()
    executor.search.sync()
    executor.index_pending()
    executor.close()
    with sqlite3.connect(hangar_home / "executor.db") as db:
        assert db.execute("DELETE FROM transcript_turn_tables").rowcount == 1
    db.close()
    with running_hub() as hub:
        yield LiveHub(hub, hub.token(hangar_home), {})


def _exact_page(url: str) -> bool:
    return "/ui/transcript?" in url and "glance=true" not in url


def test_the_last_turns_show_before_the_exact_page(unread_hub: LiveHub, tmp_path: Path) -> None:
    with logged_in_page(unread_hub.url, unread_hub.token, tmp_path / "profile") as page:
        held: list[Any] = []

        def hold(route: Any) -> None:
            held.append(route)  # the exact page waits until released

        page.route(_exact_page, hold)
        with page.expect_request(lambda request: _exact_page(request.url)):
            page.locator("#sidebar-content a.task", has_text="request 1").click()
        provisional = page.locator("#messages article.msg.provisional")
        expect(provisional.last).to_contain_text("answer 79")
        assert provisional.count() >= 50
        # Their indexes are not known yet: no numbers, no message ids, nothing to page from.
        assert page.locator("#messages .msg-head > .index").count() == 0
        assert page.locator("#messages article[id^='msg-']").count() == 0
        assert len(held) == 1
        held[0].continue_()
        page.unroute(_exact_page, hold)  # (a request held meanwhile goes on as well)

        expect(page.locator("#msg-157")).to_contain_text("answer 79")
        expect(provisional).to_have_count(0)
        indexes = page.eval_on_selector_all(
            "#messages article.msg", "els => els.map(e => Number(e.dataset.index))"
        )
        assert indexes == list(range(108, 158))
        expect(page.locator("#msg-157 .msg-head > .index")).to_have_text("#157")
        page.eval_on_selector("#transcript", "el => { el.scrollTop = 0; }")
        expect(page.locator("#msg-58")).to_contain_text("request 30")  # the page above
