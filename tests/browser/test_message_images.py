"""Images that came with a user message, as a user sees them in a real browser.

A real ``hangar serve`` reads Codex rollouts in the shape Codex 0.171 writes for ``-i shot.png``
and a Claude session with an inline image block; one Codex turn names an upload the hub keeps
(the copy the executor makes under ``turn-inputs/<localTaskId>/<attachmentId>/``).
"""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from hub.codex_sessions import CodexSession, png
from hub.sessions import ClaudeSession

from .conftest import _require_browser, logged_in_page, running_hub

pytestmark = pytest.mark.browser

MISSING = "/srv/private-shots/gone.png"


@dataclass
class ImageHub:
    url: str
    token: str
    home: Path
    hangar_home: Path
    upload_id: str


def _open(page: Any, url: str, title: str, text: str | None = None) -> Any:
    """The user message with ``text`` (default: the title) of the task titled ``title``."""
    page.goto(url + "/runtime-tasks")
    page.locator("#sidebar-content a.task", has_text=title).first.click()
    message = page.locator("article.msg-user", has_text=text or title).first
    expect(message).to_be_visible()
    return message


@pytest.fixture
def image_hub(isolated_home: Path, hangar_home: Path) -> Iterator[ImageHub]:
    _require_browser()
    shots = isolated_home / "shots"
    shots.mkdir()
    (shots / "screen.png").write_bytes(png(6, 4))
    (shots / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really an image" * 8)
    (shots / "huge.png").write_bytes(png(6, 4) + b"\0" * (5 * 1024 * 1024))
    (shots / "notes.png").write_text("plain text with an image's name")
    CodexSession(isolated_home, "0aaa0000-1111-7222-8333-000000000001", "/srv/app").meta().turn(
        "Look at these screens",
        "I see them.",
        (
            str(shots / "screen.png"),
            MISSING,
            str(shots / "huge.png"),
            str(shots / "notes.png"),
            str(shots / "broken.png"),
        ),
    )
    # An image-only request: its title must not be the wrapper naming the path.
    CodexSession(isolated_home, "0ccc0000-1111-7222-8333-000000000003", "/srv/app").meta().turn(
        "", "Nothing to say about it.", (MISSING,)
    )
    chart = base64.b64encode(png(10, 3)).decode()
    ClaudeSession(isolated_home, "55555555-eeee-4eee-8eee-000000000005", "/srv/app").user_blocks(
        [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": chart},
            },
            {"type": "text", "text": "What does this chart show?"},
        ]
    ).assistant("A flat line.")
    uploaded = CodexSession(isolated_home, "0bbb0000-1111-7222-8333-000000000002", "/srv/app")
    uploaded.meta().turn("First question", "First answer.")
    with running_hub() as hub:
        token = hub.token(hangar_home)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=hub.url, headers=headers, trust_env=False, timeout=30) as api:
            work = api.get("/api/runtime-work").json()
            tasks = [t for p in work["projects"] for t in p["tasks"]] + work["conversations"]
            task = next(
                t for t in tasks if t["runtimeHandle"].get("threadId") == uploaded.thread_id
            )
            sent = api.post(
                "/api/runtime-work/attachments",
                files={"file": ("upload.png", png(8, 5, grey=0x20), "image/png")},
            )
            assert sent.status_code == 200, sent.text
        upload_id = sent.json()["attachmentId"]
        # What the executor's send does with an upload: a private copy handed to Codex.
        copy = hangar_home / "turn-inputs" / task["localTaskId"] / upload_id / "upload.png"
        copy.parent.mkdir(parents=True)
        copy.write_bytes(png(8, 5, grey=0x20))
        uploaded.turn(
            "Compare with the upload", "They differ.", (str(copy), str(shots / "screen.png"))
        )
        yield ImageHub(hub.url, token, isolated_home, hangar_home, upload_id)


@pytest.fixture
def image_page(image_hub: ImageHub, tmp_path: Path) -> Iterator[Any]:
    with logged_in_page(image_hub.url, image_hub.token, tmp_path / "profile") as page:
        yield page


def _loaded_width(image: Any) -> int:
    return int(image.evaluate("img => img.complete ? img.naturalWidth : -1"))


def test_codex_local_images_show_as_previews_and_never_as_paths(
    image_hub: ImageHub, image_page: Any
) -> None:
    """RW-222, RW-220: a readable, real, small local image is shown as a preview; a missing
    one, one over 5 MB, a text file named .png and one the browser cannot decode are shown by
    file name only, and no local path is anywhere on the page (the sidebar's titles too)."""
    page = image_page
    message = _open(page, image_hub.url, "Look at these screens")
    images = message.locator(".attachment-image img")
    expect(images).to_have_count(1)
    expect(message.locator(".attachment-image figcaption")).to_have_text("screen.png")
    assert images.first.get_attribute("src", timeout=0).startswith("data:image/png;base64,")
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=images.first.element_handle()
    )
    assert _loaded_width(images.first) == 6
    chips = message.locator(".attachment")
    expect(chips).to_have_text(["📎 gone.png", "📎 huge.png", "📎 notes.png", "📎 broken.png"])
    html = page.content()
    assert MISSING not in html and str(image_hub.home / "shots") not in html
    assert "<image name=" not in html and "[Image #1]" not in message.inner_text()
    expect(message.locator(".md")).to_have_text("Look at these screens")


def test_claude_inline_image_is_previewed(image_hub: ImageHub, image_page: Any) -> None:
    """A Claude image content block is shown as the image itself, from the record's bytes."""
    message = _open(image_page, image_hub.url, "What does this chart show?")
    image = message.locator(".attachment-image img")
    expect(image).to_have_count(1)
    image_page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle()
    )
    assert _loaded_width(image) == 10


def test_upload_wins_over_local_mentions_and_previews_are_not_stored(
    image_hub: ImageHub, image_page: Any
) -> None:
    """RW-218, RW-219, RW-223: a message with an upload shows only the upload (from the hub),
    not its temporary local copy's path nor the prompt's other local image; the local previews
    the executor made are not hub attachments (the hub holds the one upload only)."""
    page = image_page
    message = _open(page, image_hub.url, "First question", "Compare with the upload")
    images = message.locator(".attachment-image img")
    expect(images).to_have_count(1)
    src = f"/api/runtime-work/attachments/{image_hub.upload_id}/content"
    expect(images.first).to_have_attribute("src", src)
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=images.first.element_handle()
    )
    assert _loaded_width(images.first) == 8
    expect(message.locator(".attachment-image figcaption")).to_have_text("upload.png")
    expect(message.locator(".attachment")).to_have_count(0)  # screen.png is not shown here
    assert "turn-inputs" not in page.content()
    # The message before it, without an upload, still falls back to nothing (it had no image).
    first = page.locator("article.msg-user", has_text="First question")
    expect(first.locator(".attachments")).to_have_count(0)
    with sqlite3.connect(image_hub.hangar_home / "hub.db") as db:
        rows = db.execute("select id, name from attachments").fetchall()
    assert rows == [(image_hub.upload_id, "upload.png")]


def test_upload_route_serves_only_checked_images_of_the_owner(image_hub: ImageHub) -> None:
    """The image route answers a known upload with its checked type and nosniff, and an
    unknown or malformed id with a JSON 404, never a file from the disk."""
    headers = {"Authorization": f"Bearer {image_hub.token}"}
    with httpx.Client(base_url=image_hub.url, headers=headers, trust_env=False) as api:
        ok = api.get(f"/api/runtime-work/attachments/{image_hub.upload_id}/content")
        assert ok.status_code == 200
        assert ok.headers["content-type"] == "image/png"
        assert ok.headers["x-content-type-options"] == "nosniff"
        assert ok.content.startswith(b"\x89PNG")
        for bad in ("0" * 32, "..%2F..%2Fhub.db", "x" * 500):
            missing = api.get(f"/api/runtime-work/attachments/{bad}/content")
            assert missing.status_code in (404, 422), (bad, missing.status_code)
            assert "error" in missing.json()
    anonymous = httpx.get(
        f"{image_hub.url}/api/runtime-work/attachments/{image_hub.upload_id}/content",
        trust_env=False,
    )
    assert anonymous.status_code == 401
