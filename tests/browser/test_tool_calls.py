"""Tool calls in the demo read like what happened, in a real browser: the command a shell ran
with its output and exit code (no agent bookkeeping), a file write as a file change; the
transcript exported from the task header."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect, sync_playwright

from hangar.hub.demo import demo_corpus

from .conftest import CHROMIUM, CHROMIUM_ARGS, _require_browser, running_hub

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def demo_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """One demo hub and a logged-in browser for this module's tests."""
    _require_browser()
    try:
        demo_corpus()
    except Exception as exc:  # a checkout without the generated corpus
        pytest.skip(str(exc))
    with running_hub("--demo") as hub, sync_playwright() as playwright:
        token = re.search(r"demo token: (\S+)", "".join(hub.output))
        assert token
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(20_000)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(hub.url + "/login")
            page.fill("#token", token.group(1))
            page.press("#token", "Enter")
            page.wait_for_url("**/runtime-tasks")
            yield page, hub.url
        finally:
            context.close()


@pytest.fixture
def demo_page(demo_browser: tuple[Any, str]) -> Any:
    page, url = demo_browser
    page.goto(url + "/runtime-tasks")
    return page


def test_shell_calls_and_file_writes_read_like_what_happened(demo_page: Any) -> None:
    page = demo_page
    page.locator("#sidebar-content a.task", has_text="cart_total").first.click()
    tool = page.locator("details.tool", has_text="ls shop").first
    expect(tool.locator("> summary")).to_contain_text("exit 0")
    tool.locator("> summary").click()
    expect(tool.locator(".tool-command")).to_have_text("ls shop && cat shop/catalog.py")
    output = tool.locator(".tool-output")
    expect(output).to_contain_text("catalog.py")
    for noise in ("Chunk ID", "Wall time", "Original token count"):
        expect(output).not_to_contain_text(noise)
    expect(tool.locator(".tool-raw pre")).to_be_hidden()  # the raw JSON is one click away
    tool.locator(".tool-raw summary").click()
    expect(tool.locator(".tool-raw pre")).to_contain_text('"cmd"')

    page.locator("#sidebar-content a.task", has_text="CHECKOUT.md").first.click()
    name = page.locator(".tool-name", has_text=re.compile(r"^Write$"))
    write = page.locator("details.tool").filter(has=name).first
    write.locator("> summary").click()
    change = write.locator(".file-change").first
    path = change.locator("code")
    expect(path).to_have_text("CHECKOUT.md")
    expect(path).to_have_attribute("title", re.compile(r"^/.*/CHECKOUT\.md$"))
    expect(change.locator(".add")).to_have_text(re.compile(r"^\+[1-9]\d*$"))
    expect(change.locator(".del")).to_have_text("−0")


def test_the_task_header_exports_the_transcript(demo_page: Any, tmp_path: Path) -> None:
    page = demo_page
    page.locator("#sidebar-content a.task", has_text="cart_total").first.click()
    expect(page.locator("#messages article.msg").first).to_be_visible()
    with page.expect_download() as markdown:
        page.locator("#export-md").click()
    saved = tmp_path / markdown.value.suggested_filename
    markdown.value.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    assert saved.suffix == ".md" and text.startswith("# ")
    assert "```sh\nls shop && cat shop/catalog.py\n```" in text
    with page.expect_download() as html:
        page.locator("#export-html").click()
    assert html.value.suggested_filename.endswith(".html")


def test_the_task_header_names_the_session_and_copies_its_resume_command(
    demo_browser: tuple[Any, str],
) -> None:
    page, url = demo_browser
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page.goto(url + "/runtime-tasks")
    page.locator("#sidebar-content a.task", has_text="cart_total").first.click()
    facts = page.locator("#task-facts .task-facts")
    expect(facts.locator(".agent")).to_have_text("Codex")
    expect(facts.locator(".cwd")).to_have_text("/home/demo/code/webshop")
    session = facts.locator(".session")
    expect(session).to_have_text(re.compile(r"^[0-9a-f-]{36}$"))
    session_id = session.text_content()
    facts.locator("button.copy", has_text="Copy resume command").click()
    expect(facts.locator("button.copy", has_text="Copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"cd /home/demo/code/webshop && codex resume {session_id}"
    facts.locator("button.copy", has_text="Copy link").click()
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == page.url and "localTaskId=" in link
    time = page.locator("#messages article.msg time").first
    expect(time).to_have_attribute("title", re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$"))
