"""The worktree manager in a real browser against a real hub over a real git project: delete
keeps a snapshot, restore brings the worktree back byte for byte, settings are saved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from workspace_tools.projects import make_project

from .conftest import _require_browser, logged_in_page, running_hub, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def managed(isolated_home: Path, hangar_home: Path, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A served hub with one managed worktree ``try-cart`` of the project ``shop`` that holds
    an uncommitted edit and a new file."""
    _require_browser()
    project = make_project(isolated_home, tmp_path)
    with running_hub() as hub:
        token = hub.token(hangar_home)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=hub.url, headers=headers, timeout=30) as api:
            device = api.get("/api/runtime-work").json()["devices"][0]["deviceId"]
            made = api.post(
                "/api/runtime-work/worktrees/prepare",
                json={
                    "deviceId": device,
                    "sourcePath": str(project.root),
                    "worktreeId": "try-cart",
                },
            )
            assert made.status_code == 200, made.text
            path = Path(made.json()["path"])
            (path / "src" / "cart.py").write_text("TOTAL = 99  # uncommitted\n")
            (path / "notes.txt").write_bytes(b"new file\x00with a NUL\n")
            yield {"url": hub.url, "token": token, "path": path, "root": project.root, "api": api}


def test_delete_keeps_a_snapshot_and_restore_brings_the_worktree_back(
    managed: dict[str, Any], tmp_path: Path
) -> None:
    """Delete (after the confirmation) removes the directory and the page
    shows the snapshot; Restore recreates it at its path with the uncommitted edit and the
    untracked file as they were; the project's own checkout is untouched."""
    path: Path = managed["path"]
    before = {p: (path / p).read_bytes() for p in ("src/cart.py", "notes.txt")}
    main_readme = (managed["root"] / "README.md").read_bytes()
    with logged_in_page(managed["url"], managed["token"], tmp_path / "profile") as page:
        page.goto(managed["url"] + "/worktrees")
        item = page.locator(".wt-item[data-worktree-id=try-cart]")
        expect(item.locator(".wt-state")).to_have_text("active")
        expect(item.locator(".wt-path")).to_have_text(str(path))
        screenshot(page, "worktrees")
        item.locator("[data-action=delete]").click()
        page.click("#confirm-ok")
        expect(item.locator(".wt-state")).to_have_text("removed · snapshot kept")
        assert not path.exists()
        item.locator("[data-action=restore]").click()
        expect(item.locator(".wt-state")).to_have_text("active")
        assert {p: (path / p).read_bytes() for p in before} == before
        assert (managed["root"] / "README.md").read_bytes() == main_readme


def test_settings_are_saved_and_shown(managed: dict[str, Any], tmp_path: Path) -> None:
    with logged_in_page(managed["url"], managed["token"], tmp_path / "profile") as page:
        page.goto(managed["url"] + "/worktrees")
        form = page.locator("form.wt-settings")
        form.locator("input[name=keepCount]").fill("3")
        form.locator("input[name=autoCleanup]").uncheck()
        form.locator("button[type=submit]").click()
        expect(page.locator("#status-line")).to_contain_text("Settings saved")
        expect(form.locator("input[name=keepCount]")).to_have_value("3")
        expect(form.locator("input[name=autoCleanup]")).not_to_be_checked()
        device = managed["api"].get("/api/runtime-work").json()["devices"][0]["deviceId"]
        settings = managed["api"].post(
            "/api/runtime-work/worktrees/settings/get", json={"deviceId": device}
        )
        assert settings.json()["keepCount"] == 3 and settings.json()["autoCleanup"] is False
