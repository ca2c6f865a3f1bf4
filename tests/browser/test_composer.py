"""The composer in a real browser, continuing real agent sessions in the sandbox: compose, the
reply streams in, a queued message follows, guidance splits the reply, an approval is
answered in the pane and survives a reload."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect, sync_playwright

from hangar.composition import LocalHangar
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.hub_thread import serve_local
from hangar.testing.scenarios import scenario_from_dict

from .conftest import CHROMIUM, CHROMIUM_ARGS, _require_browser, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]
TOKEN = "composer-browser-token-0123456789"
SLOW = 60_000
"""Waits for what a real agent does (a busy machine runs several CLIs at once)."""


def play(agent_sandbox: AgentSandbox, *turns: dict[str, Any]) -> None:
    agent_sandbox.sandbox.load(scenario_from_dict({"name": "composer", "turns": list(turns)}))


def png(width: int = 8, height: int = 8) -> bytes:
    """A real (tiny, grey) PNG image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def sandbox_hangar(agent_sandbox: AgentSandbox, runtime: str) -> LocalHangar:
    from hangar.agents.registry import open_stores

    home = agent_sandbox.host(agent_sandbox.homes.home)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    stores = open_stores(env)
    return LocalHangar.open(stores={runtime: stores[runtime]}, launcher=agent_sandbox.launcher())


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    _require_browser()
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1100, "height": 900},
        )
        context.set_default_timeout(30_000)
        try:
            yield context
        finally:
            context.close()


def login(context: Any, url: str) -> Any:
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(url + "/login")
    page.fill("#token", TOKEN)
    page.press("#token", "Enter")
    page.wait_for_url("**/runtime-tasks")
    return page


def open_task(page: Any, title: str) -> None:
    page.locator("#sidebar-content a.task", has_text=title).first.click()
    expect(page.locator("#composer")).to_be_visible(timeout=SLOW)


def test_compose_stream_queue_and_guidance_with_codex(
    agent_sandbox: AgentSandbox, hangar_home: Path, browser: Any
) -> None:
    """RW-124 (queued while replying, sent after), RW-125 (a queued message cancelled is never
    sent), RW-130/RW-136 (guidance goes to the running Codex turn and splits the reply: the
    part before frozen, the rest streams after it), RW-137/RW-142 (after the refresh the
    transcript shows the same order, once), RW-140 (the reply streams in before it is
    persisted), RW-150 (no compaction while replying)."""
    _require_browser()
    first = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert first.returncode == 0, first.stderr
    agent_sandbox.offer_codex_model()
    local = sandbox_hangar(agent_sandbox, "codex")
    try:
        with serve_local(local, TOKEN) as url:
            page = login(browser, url)
            open_task(page, "say hello")
            page.select_option("#model-picker", label="fake-model")
            play(
                agent_sandbox,
                {"text": "Streaming the first answer slowly, word by word.", "delay": 4},
                {"text": "The queued question is answered."},
            )
            page.fill("#composer-input", "Tell me slowly")
            page.press("#composer-input", "Enter")
            live = page.locator("#live-turn")
            expect(live.locator(".msg-user")).to_contain_text("Tell me slowly", timeout=SLOW)
            streaming = live.locator("article.msg-assistant.streaming")
            expect(streaming).to_contain_text(
                "Streaming the", timeout=SLOW
            )  # before the reply is complete
            page.click("#compact-button")  # RW-150: not while a reply runs
            expect(page.locator("#composer-note")).to_contain_text(
                "Wait for the reply", timeout=SLOW
            )
            page.fill("#composer-input", "And a follow-up")
            page.press("#composer-input", "Enter")
            page.fill("#composer-input", "Never mind this one")
            page.press("#composer-input", "Enter")
            queued = page.locator("#queue-items li")
            expect(queued).to_have_count(2, timeout=SLOW)
            queued.filter(has_text="Never mind").locator("button.cancel-queued").click()  # RW-125
            expect(queued).to_have_count(1, timeout=SLOW)
            expect(queued).to_contain_text("And a follow-up", timeout=SLOW)
            screenshot(page, "composer-streaming")
            messages = page.locator("#messages article.msg")
            expect(messages.filter(has_text="The queued question is answered.")).to_have_count(
                1, timeout=SLOW
            )
            expect(page.locator("#queue")).to_be_hidden(timeout=SLOW)
            expect(messages.filter(has_text="word by word.")).to_have_count(1, timeout=SLOW)
            expect(live).to_be_empty(timeout=SLOW)  # the transcript took over both turns
            sent = json.dumps([r.get("body") for r in agent_sandbox.sandbox.requests()])
            assert "Never mind this one" not in sent

            # Codex records a model response only once it completes (a steer restarts a response
            # still streaming), so the part before the guidance ends with a tool call that runs
            # while the guidance arrives.
            play(
                agent_sandbox,
                {"text": "Working on part one of it now.", "shell": "sleep 4"},
                {"text": "Adjusted after your guidance.", "delay": 3},
            )
            page.fill("#composer-input", "Do the work")
            page.press("#composer-input", "Enter")
            expect(streaming).to_contain_text("Working on", timeout=SLOW)
            expect(streaming.locator(".tool-chip")).to_contain_text("sleep 4", timeout=SLOW)
            page.fill("#composer-input", "Use tabs please")
            page.click("#guidance-button")
            # At once, without waiting for the RPC: before | guidance | after (RW-135/136).
            parts = live.locator("article.msg")
            expect(parts.nth(1)).to_have_class("msg msg-assistant live frozen", timeout=SLOW)
            expect(parts.nth(2)).to_contain_text("Use tabs please", timeout=SLOW)
            expect(live.locator(".msg-assistant").last).to_contain_text(
                "Adjusted after", timeout=SLOW
            )
            expect(messages.filter(has_text="Adjusted after your guidance.")).to_have_count(
                1, timeout=SLOW
            )
            expect(live).to_be_empty(timeout=SLOW)
            keys = ("Do the work", "part one", "Use tabs please", "Adjusted after")
            texts = [messages.nth(i).inner_text() for i in range(messages.count())]
            order = [k for t in texts for k in keys if k in t]
            assert order == list(keys)  # the refreshed transcript: the same order, once each

            play(
                agent_sandbox,
                {"text": "An answer too long to wait for.", "delay": 30},
                {"text": "Answered right after the stop."},
            )
            page.fill("#composer-input", "Tell me a long story")
            page.press("#composer-input", "Enter")
            expect(streaming).to_contain_text("An answer", timeout=SLOW)
            page.fill("#composer-input", "Stop and answer this")
            page.press("#composer-input", "Enter")
            page.click("#pause-and-send")  # RW-126: cancel first, then the queue goes
            expect(messages.filter(has_text="Answered right after the stop.")).to_have_count(
                1, timeout=SLOW
            )
            expect(page.locator("#queue")).to_be_hidden(timeout=SLOW)
    finally:
        local.close()


def test_an_approval_is_answered_in_the_pane_and_survives_a_reload(
    agent_sandbox: AgentSandbox, hangar_home: Path, browser: Any, tmp_path: Path
) -> None:
    """Claude's permission callback: the request shows in the task pane and the task list,
    is still there after a reload, and the command runs only after Approve."""
    _require_browser()
    first = agent_sandbox.run_agent("claude", "hello", "Say hello")
    assert first.returncode == 0, first.stderr
    local = sandbox_hangar(agent_sandbox, "claude")
    try:
        with serve_local(local, TOKEN) as url:
            page = login(browser, url)
            open_task(page, "Say hello")
            page.select_option("#model-picker", label="Sonnet")
            # An image, uploaded and previewed, reaches Claude as an image block (RW-153..156).
            image = tmp_path / "screen.png"
            image.write_bytes(png())
            page.set_input_files("#attach-input", str(image))
            expect(page.locator("#attachment-previews .attachment-chip img")).to_have_count(
                1, timeout=SLOW
            )
            play(agent_sandbox, {"text": "A small grey square."})
            page.fill("#composer-input", "What is in the picture?")
            page.press("#composer-input", "Enter")
            expect(page.locator("#messages article.msg").last).to_contain_text(
                "A small grey square.", timeout=SLOW
            )
            asked = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"][-1]
            assert '"type": "image"' in json.dumps(asked["body"]["messages"])
            assert str(image) not in json.dumps(asked["body"])  # the browser never sent its path

            play(agent_sandbox, {"shell": "echo yes > approved.txt"}, {"text": "Marker written."})
            page.fill("#composer-input", "Write the marker")
            page.press("#composer-input", "Enter")
            card = page.locator("#approvals .approval-card")
            expect(card).to_contain_text("echo yes > approved.txt", timeout=SLOW)
            expect(page.locator("#sidebar-content a.task .needs-approval")).to_be_visible(
                timeout=SLOW
            )
            page.reload()
            expect(card).to_contain_text(
                "echo yes > approved.txt", timeout=SLOW
            )  # survives the reload
            assert not (first.cwd / "approved.txt").exists()
            screenshot(page, "composer-approval")
            card.locator("button[data-decision=approve]").click()
            expect(page.locator("#messages article.msg").last).to_contain_text(
                "Marker written.", timeout=SLOW
            )
            expect(card).to_have_count(0, timeout=SLOW)
            assert (first.cwd / "approved.txt").read_text() == "yes\n"
    finally:
        local.close()


def test_a_stuck_turn_keeps_its_message_and_failure_and_retry_sends_it_again(
    agent_sandbox: AgentSandbox,
    hangar_home: Path,
    browser: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RW-115/RW-116: a model that never answers: after the (short) startup timeout the pane
    keeps the user's message and a failure card; Retry sends that same input again, and no
    blank assistant message is left behind."""
    monkeypatch.setenv("HANGAR_CODEX_TURN_STARTUP_TIMEOUT_SECONDS", "3")
    first = agent_sandbox.run_agent("codex", "hello", "say hello")
    assert first.returncode == 0, first.stderr
    agent_sandbox.offer_codex_model()
    local = sandbox_hangar(agent_sandbox, "codex")
    try:
        with serve_local(local, TOKEN) as url:
            page = login(browser, url)
            open_task(page, "say hello")
            page.select_option("#model-picker", label="fake-model")
            play(agent_sandbox, {"stall": True}, {"text": "Answered on the retry."})
            page.fill("#composer-input", "Please answer this")
            page.press("#composer-input", "Enter")
            card = page.locator("#live-turn .failure-card")
            expect(card).to_contain_text("no progress within 3s", timeout=SLOW)
            expect(page.locator("#live-turn .msg-user")).to_contain_text("Please answer this")
            expect(page.locator("#live-turn .msg-assistant")).to_have_count(0)  # no blank reply
            card.locator("button.retry-button").click()
            messages = page.locator("#messages article.msg")
            expect(messages.filter(has_text="Answered on the retry.")).to_have_count(
                1, timeout=SLOW
            )
            expect(page.locator("#live-turn")).to_be_empty(timeout=SLOW)
            replies = page.locator("#messages article.msg-assistant")
            for i in range(replies.count()):
                assert replies.nth(i).inner_text().strip().splitlines()[-1] != "Assistant"
            retried = [r for r in agent_sandbox.sandbox.requests() if r["kind"] == "turn"][-1]
            assert "Please answer this" in json.dumps(retried["body"]["input"][-1])
    finally:
        local.close()


def test_the_composer_fits_400px_and_says_why_it_cannot_send(page: Any, live_hub: Any) -> None:
    """At 400 px the composer fits without sideways scrolling; with no agent CLI installed the
    task pane says so instead of offering a send that would fail."""
    page.set_viewport_size({"width": 400, "height": 800})
    page.locator("#sidebar-toggle").click()
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    composer = page.locator("#composer")
    expect(composer).to_be_visible()
    expect(page.locator("#composer-note")).to_contain_text("claude is not installed")
    expect(page.locator("#composer-input")).to_be_disabled()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400
    box = composer.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 400
    screenshot(page, "composer-narrow")
