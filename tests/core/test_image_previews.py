"""Previews of the images a user message names: only real, small, readable image files."""

from __future__ import annotations

import os
from pathlib import Path

from hangar.executor.image_previews import with_previews
from hangar.model import Attachment, Message
from hub.codex_sessions import png


def _message(*paths: str) -> Message:
    attachments = [Attachment(name=Path(p).name, path=p) for p in paths]
    return Message(index=0, id="t:user:0", role="user", turn_id="t", attachments=attachments)


def test_only_readable_small_images_get_a_preview_and_the_cache_is_untouched(
    tmp_path: Path,
) -> None:
    """RW-222: a readable PNG of at most 5 MB gets ``ready`` and a data URL; a FIFO (never
    blocks), a text file named .png, a 5 MB + 1 byte image, a relative path and a missing file
    get none; the message given is not changed (it may be a cached parse)."""
    ok = tmp_path / "ok.png"
    ok.write_bytes(png())
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    text = tmp_path / "text.png"
    text.write_text("not an image")
    big = tmp_path / "big.png"
    big.write_bytes(png() + b"\0" * (5 * 1024 * 1024 + 1 - len(png())))
    limit = tmp_path / "limit.png"
    limit.write_bytes(png() + b"\0" * (5 * 1024 * 1024 - len(png())))
    original = _message(
        str(ok), str(fifo), str(text), str(big), str(limit), "ok.png", str(tmp_path / "gone.png")
    )
    (shown,) = with_previews([original], tmp_path / "turn-inputs", "task-1")
    assert shown.attachments is not None
    ready = [a.name for a in shown.attachments if a.status == "ready"]
    assert ready == ["ok.png", "limit.png"]
    first = shown.attachments[0]
    assert first.local_preview_url and first.local_preview_url.startswith("data:image/png;base64,")
    assert all(a.status is None for a in original.attachments or [])


def test_a_copy_of_an_upload_is_named_by_its_attachment_id(tmp_path: Path) -> None:
    """RW-218: the executor's copy of an upload is the hub's attachment, not a local preview."""
    inputs = tmp_path / "turn-inputs"
    copy = inputs / "task-1" / "abc123" / "shot.png"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(png())
    other_task = inputs / "task-2" / "def456" / "shot.png"
    other_task.parent.mkdir(parents=True)
    other_task.write_bytes(png())
    (shown,) = with_previews([_message(str(copy), str(other_task))], inputs, "task-1")
    assert shown.attachments is not None
    mine, theirs = shown.attachments
    assert (mine.attachment_id, mine.mime_type, mine.local_preview_url) == (
        "abc123",
        "image/png",
        None,
    )
    assert theirs.attachment_id is None  # another task's upload is not this message's
