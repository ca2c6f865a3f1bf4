"""Browser tests: Python Playwright driving Debian's headless Chromium against a real hub.

Without ``/usr/bin/chromium`` the tests skip with the reason, unless
``HANGAR_REQUIRE_BROWSER=1`` (CI) turns that into a failure. Each test gets a fresh browser
profile (user-data dir under its tmp_path) and its own ``hangar serve`` process.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hub.server_process import RunningHub, running_hub  # tests/hub, a sibling package
from hub.sessions import ClaudeSession, sample_home

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Screenshots go to a temp folder; HANGAR_UPDATE_SCREENSHOTS=1 writes the docs' copies
# (read at import: the autouse fixture clears HANGAR_* variables for each test).
SCREENSHOTS = (
    Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    if os.environ.get("HANGAR_UPDATE_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "hangar-screenshots"
)


def _require_browser() -> None:
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} not installed (make browser installs Debian's chromium)"
    if os.environ.get("HANGAR_REQUIRE_BROWSER") == "1":
        pytest.fail(reason + "; HANGAR_REQUIRE_BROWSER=1 requires it")
    pytest.skip(reason)


@dataclass
class LiveHub:
    hub: RunningHub
    token: str
    sessions: dict[str, ClaudeSession]

    @property
    def url(self) -> str:
        return self.hub.url


@pytest.fixture
def live_hub(isolated_home: Path, hangar_home: Path) -> Iterator[LiveHub]:
    """A real ``hangar serve`` over sample Claude sessions in the test's HOME."""
    _require_browser()
    sessions = sample_home(isolated_home)
    chat = ClaudeSession(
        isolated_home,
        "44444444-dddd-4ddd-8ddd-000000000004",
        str(isolated_home / "Documents" / "Codex" / "2026-11-20" / "chat"),
    )
    chat.user("Just a chat").assistant("Chatting.")
    sessions["chat"] = chat
    with running_hub() as hub:
        yield LiveHub(hub, hub.token(hangar_home), sessions)


@pytest.fixture
def page(live_hub: LiveHub, tmp_path: Path) -> Iterator[Any]:
    """A fresh Chromium profile's page, logged in to the live hub."""
    with logged_in_page(live_hub.url, live_hub.token, tmp_path / "chromium-profile") as tab:
        yield tab


@contextmanager
def logged_in_page(
    url: str,
    token: str,
    profile: Path,
) -> Iterator[Any]:
    """A fresh Chromium profile's page at ``url``, logged in with ``token``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(15_000)
        try:
            tab = context.pages[0] if context.pages else context.new_page()
            tab.goto(url + "/runtime-tasks")
            tab.wait_for_url("**/login?next=*")
            tab.fill("#token", token)
            tab.press("#token", "Enter")
            tab.wait_for_url("**/runtime-tasks")
            yield tab
        finally:
            context.close()


def screenshot(page: Any, name: str) -> None:
    """Save a small PNG of the current view for the docs."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


@dataclass
class DemoHub:
    hub: RunningHub
    token: str

    @property
    def url(self) -> str:
        return self.hub.url


@pytest.fixture
def demo_hub() -> Iterator[DemoHub]:
    """A real ``hangar serve --demo`` (skips on a checkout without the generated corpus)."""
    _require_browser()
    from hangar.hub.demo import demo_corpus

    try:
        demo_corpus()
    except Exception as exc:
        pytest.skip(str(exc))
    with running_hub("--demo") as hub:
        found = re.search(r"demo token: (\S+)", "".join(hub.output))
        assert found, "".join(hub.output)
        yield DemoHub(hub, found.group(1))


@pytest.fixture
def demo_page(demo_hub: DemoHub, tmp_path: Path) -> Iterator[Any]:
    """A fresh Chromium profile's page, logged in to the demo hub; page errors fail the test."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(20_000)
        errors: list[str] = []
        try:
            tab = context.pages[0] if context.pages else context.new_page()
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            tab.goto(demo_hub.url + "/login")
            tab.fill("#token", demo_hub.token)
            tab.press("#token", "Enter")
            tab.wait_for_url("**/runtime-tasks")
            yield tab
        finally:
            context.close()
        assert errors == []


@dataclass
class DemoTab:
    """One logged-in page on a demo hub shared by a module's tests; ``errors`` collects
    uncaught page errors (each test using :func:`demo_view` asserts there were none)."""

    page: Any
    url: str
    errors: list[str]


@pytest.fixture(scope="module")
def demo_tab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoTab]:
    """A demo hub and a logged-in Chromium for one test module (started once: it is slow)."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    from hangar.hub.demo import demo_corpus

    try:
        demo_corpus()
    except Exception as exc:
        pytest.skip(str(exc))
    with running_hub("--demo") as hub, sync_playwright() as playwright:
        found = re.search(r"demo token: (\S+)", "".join(hub.output))
        assert found, "".join(hub.output)
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(20_000)
        try:
            tab = context.pages[0] if context.pages else context.new_page()
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            tab.goto(hub.url + "/login")
            tab.fill("#token", found.group(1))
            tab.press("#token", "Enter")
            tab.wait_for_url("**/runtime-tasks")
            yield DemoTab(tab, hub.url, errors)
        finally:
            context.close()


@pytest.fixture
def demo_view(demo_tab: DemoTab) -> Iterator[Any]:
    """The shared demo page at ``/runtime-tasks`` (wide, light); no page errors allowed."""
    page = demo_tab.page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.emulate_media(color_scheme="light")
    demo_tab.errors.clear()
    page.goto(demo_tab.url + "/runtime-tasks")
    yield page
    assert demo_tab.errors == []
