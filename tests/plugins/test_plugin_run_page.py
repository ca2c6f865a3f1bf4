"""A plugin's run on the issue page, in headless Chromium: the web UI shows a plugin's execution
log with its generic message types, as it shows a built-in provider's (no plugin-specific UI)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from browser.conftest import CHROMIUM, CHROMIUM_ARGS, _require_browser

from .conftest import USER_TOKEN, LocalHub, client_env, hangar, install

pytestmark = pytest.mark.browser
TURN = {"turnKey": "t1"}


def event(kind: str, key: str, **fields: Any) -> str:
    return "emit:" + json.dumps({"type": kind, "source": "scripted", "source_key": key, **fields})


def test_a_plugin_run_reads_like_any_run_on_the_issue_page(
    plugin_factory: Callable[..., Path], local_hub: LocalHub, tmp_path: Path
) -> None:
    """LR-194: after `hangar run KEY -- NAME`, the issue page lists the run under the plugin's
    name and its execution log shows each message with its generic type and tool name (the
    command of a tool use, the output of its result) — in order, once each, nothing else."""
    _require_browser()
    from playwright.sync_api import expect, sync_playwright

    home = tmp_path / "client"
    steps = [
        event("user_input", "t1:user", content="List the files", input=TURN),
        event("thinking", "t1:think", content="The user wants a listing."),
        event("tool_use", "t1:use:c1", tool="bash", input={"command": "ls -1"}),
        event("tool_result", "t1:result:c1", tool="bash", output="README.md\nsrc"),
        "raw:not an event\\n",  # skipped: never on the page
        event("final", "t1:final", content="Two entries: README.md and src.", input=TURN),
    ]
    install(plugin_factory("pagebot", steps=steps), home)
    issue = local_hub.issue("Plugin run on the page")
    done = hangar(["run", issue["key"], "--", "pagebot"], client_env(local_hub, home), tmp_path)
    assert done.returncode == 0, done.stderr

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
        )
        context.set_default_timeout(20_000)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(f"{local_hub.url}/issues/{issue['key']}")
            page.wait_for_url("**/login?next=*")
            page.fill("#token", USER_TOKEN)
            page.press("#token", "Enter")
            page.wait_for_url(f"**/issues/{issue['key']}")
            run = page.locator("#local-runs li.run")
            expect(run).to_have_count(1)
            expect(run.locator("summary strong")).to_have_text("pagebot")
            expect(run.locator(".run-status")).to_have_text("completed")
            items = run.locator(".run-log li.run-msg")
            expect(items).to_have_count(5)
            labels = items.locator(".run-msg-type").all_inner_texts()
            bodies = items.locator(".run-msg-body").all_inner_texts()
        finally:
            context.close()
    assert labels == ["user_input", "thinking", "tool_use · bash", "tool_result · bash", "final"]
    assert bodies == [
        "List the files",
        "The user wants a listing.",
        "ls -1",
        "README.md\nsrc",
        "Two entries: README.md and src.",
    ]
