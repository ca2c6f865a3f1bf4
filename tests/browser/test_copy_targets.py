"""Choosing where "Copy to new task" goes, in a real browser: a hub with two real executors
(separate homes, 127.0.0.2 and 127.0.0.3), real Codex sessions and git clones of one remote."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from devices.test_copy_across import bare_remote, clone_with_a_session, two_devices
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .conftest import _require_browser
from .test_composer import SLOW, browser, open_task

pytestmark = [pytest.mark.browser, pytest.mark.real_agents]
__all__ = ["browser"]  # the fixture, shared with the composer's tests


def test_the_picker_offers_the_project_targets_and_prepares_an_unbound_device(
    agent_sandbox: AgentSandbox, tmp_path: Path, browser: Any
) -> None:
    """RW-301, RW-302, RW-303, RW-305: the copy action of the laptop's task offers this
    device and the desk as not in the project yet — never the desk's unrelated project;
    choosing the desk's clone (as a workspace) copies there and opens the copy on the desk;
    copying again offers that clone directly."""
    _require_browser()
    remote = bare_remote(tmp_path / "git")
    clone_with_a_session(agent_sandbox, remote, "Look at the shop")
    with two_devices(agent_sandbox, tmp_path) as (hub, desk_box, laptop, desk):
        desk_repo = clone_with_a_session(desk_box, remote, "Desk looks at the shop")
        (desk_box.host(desk_box.homes.home) / "projects" / "garden").mkdir(parents=True)
        garden = scenario_from_dict({"name": "garden", "turns": [{"text": "Garden."}]})
        ran = desk_box.run_agent("codex", garden, "Tend the garden", cwd="projects/garden")
        assert ran.returncode == 0, ran.stderr
        page = browser.pages[0] if browser.pages else browser.new_page()
        page.goto(hub.url + "/login")
        page.fill("#token", hub.token)
        page.press("#token", "Enter")
        page.wait_for_url("**/runtime-tasks")
        open_task(page, "Look at the shop")
        source_url = page.url
        assert f"deviceId={laptop.device.device_id}" in source_url

        reply = page.locator("#messages article.msg").filter(has_text="Looked at the shop.")
        reply.locator("button.copy-task").click()
        dialog = page.locator("#copy-task-dialog")
        expect(dialog).to_be_visible(timeout=SLOW)
        expect(dialog.locator("#copy-task-project")).to_have_text("Project: shop")
        choices = dialog.locator("#copy-task-targets label")
        expect(choices).to_have_count(2)
        expect(choices.nth(0)).to_contain_text("This device")
        expect(choices.nth(1)).to_contain_text("127.0.0.3: not in this project yet")
        expect(dialog).not_to_contain_text("garden")

        choices.nth(1).locator("input").check()
        directory = dialog.locator("#copy-task-directory")
        expect(directory.locator("option", has_text=str(desk_repo))).to_have_count(1)
        directory.select_option(str(desk_repo))
        dialog.locator("input[name=copy-task-label][value=workspace]").check()
        dialog.locator("#copy-task-go").click()
        expect(page).to_have_url(re.compile(f"deviceId={desk.device.device_id}&"), timeout=SLOW)
        expect(dialog).to_be_hidden()
        messages = page.locator("#messages article.msg")
        expect(messages.last).to_contain_text("Looked at the shop.", timeout=SLOW)

        page.goto(source_url)
        reply = page.locator("#messages article.msg").filter(has_text="Looked at the shop.")
        reply.locator("button.copy-task").click()
        expect(dialog).to_be_visible(timeout=SLOW)
        expect(choices.nth(1)).to_contain_text(f"127.0.0.3: {desk_repo} (workspace)")
        expect(dialog).not_to_contain_text("not in this project yet")
        dialog.locator("#copy-task-cancel").click()
        expect(dialog).to_be_hidden()
