"""Reviewing and reverting a turn's file changes in a real browser: the real Codex CLI patched
a git project in the sandbox; the page shows that turn's diff and reverts it on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.hub_thread import serve_local
from hangar.testing.scenarios import scenario_from_dict

from .conftest import _require_browser, screenshot
from .test_composer import SLOW, TOKEN, browser, login, open_task, sandbox_hangar  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]

PATCH = """apply_patch <<'EOF'
*** Begin Patch
*** Update File: README.md
@@
-# shop
+# shop, patched by the agent
*** Add File: notes/todo.txt
+first thing
*** End Patch
EOF"""


def test_a_turns_diff_is_reviewed_and_reverted_from_its_card(
    agent_sandbox: AgentSandbox,
    hangar_home: Path,
    browser: Any,  # noqa: F811
) -> None:
    """RW-243: the file-change card shows the turn's own diff; Revert (after the
    confirmation) puts the task's directory back as it was before the turn and the card says
    so, with no Revert left to press."""
    _require_browser()
    scenario = scenario_from_dict(
        {"name": "patch-shop", "workspace": {"git": True, "files": {"README.md": "# shop\nkept\n"}},
         "turns": [{"shell": PATCH}, {"text": "Patched the shop."}]}
    )  # fmt: skip
    run = agent_sandbox.run_agent("codex", scenario, "Patch the shop")
    assert run.returncode == 0, run.stderr
    workdir = run.cwd
    assert (workdir / "README.md").read_text() == "# shop, patched by the agent\nkept\n"
    local = sandbox_hangar(agent_sandbox, "codex")
    try:
        with serve_local(local, TOKEN) as url:
            page = login(browser, url)
            page.locator("#sidebar-content a.task", has_text="Patch the shop").first.click()
            card = page.locator("#messages .files[data-turn-id]").last
            expect(card).to_be_visible(timeout=SLOW)
            card.locator("[data-fc=review]").click()
            diff = card.locator(".fc-diff")
            expect(diff).to_be_visible()
            expect(diff.locator(".dl-add", has_text="+# shop, patched by the agent")).to_have_count(
                1
            )
            expect(diff.locator(".dl-del", has_text="-# shop")).to_have_count(1)
            expect(diff).to_contain_text("notes/todo.txt")
            screenshot(page, "file-change-review")
            revert = card.locator("[data-fc=revert]")
            expect(revert).to_be_enabled()
            revert.click()
            page.click("#confirm-ok")
            expect(card.locator(".fc-state")).to_contain_text("Reverted", timeout=SLOW)
            expect(revert).to_be_hidden()
            assert (workdir / "README.md").read_text() == "# shop\nkept\n"
            assert not (workdir / "notes" / "todo.txt").exists()
    finally:
        local.close()
