"""Image previews of user messages, made on this device for one transcript page (RW-218..223).

A user message's attachments come from the agent's record: a local path (Codex
``local_images``/``localImages``/``local_image``, a ``# Files mentioned`` entry) or inline
image data. Before a page leaves the executor, :func:`with_previews` resolves each path:

- a file under ``turn-inputs/<localTaskId>/<attachmentId>/`` is the copy of an upload the hub
  keeps: the attachment gets that ``attachmentId`` (a persisted attachment, which the web UI
  shows from the hub, never by its temporary local path — RW-218);
- any other absolute path that is a readable regular file, really an image (magic bytes) and
  at most 5 MB gets ``status: ready`` and a ``localPreviewUrl`` ``data:`` URL (RW-222). That
  preview exists only in this response: it is not stored, uploaded or synced (RW-223).

Only paths the session's own record names are read, never a path from a request; a file that
is missing, too large, not an image or not a regular file (a FIFO never blocks the read) simply
gets no preview. Cached transcript messages are never mutated: changed messages are copies.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

import msgspec

from hangar.image_types import MAX_PREVIEW_BYTES, preview_url, sniff_image
from hangar.model import Attachment, Message
from hangar.regular_files import open_regular


def uploaded_id(path: str, turn_inputs: Path, local_task_id: str) -> str | None:
    """The hub attachment id of ``path`` when it is this task's copy of an upload."""
    # Loaded only for a message with an attachment: the turn machinery costs a page ~3 ms.
    from hangar.executor.turn_inputs import safe_name

    folder = PurePosixPath(os.path.normpath(turn_inputs / safe_name(local_task_id)))
    candidate = PurePosixPath(os.path.normpath(path))
    try:
        rest = candidate.relative_to(folder)
    except ValueError:
        return None
    if len(rest.parts) != 2 or not rest.parts[0].isalnum():
        return None
    return rest.parts[0]


def read_preview(path: str) -> str | None:
    """A ``data:`` URL of the image at ``path``, or ``None`` when it cannot be shown."""
    where = Path(path)
    if not where.is_absolute():
        return None
    try:
        with open_regular(where) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_PREVIEW_BYTES:
                return None
            data = handle.read(MAX_PREVIEW_BYTES + 1)
    except OSError:
        return None
    return preview_url(data)


def _sniffed(path: str) -> str | None:
    try:
        with open_regular(Path(path)) as handle:
            return sniff_image(handle.read(16))
    except OSError:
        return None


def _resolved(attachment: Attachment, turn_inputs: Path, local_task_id: str) -> Attachment:
    if attachment.path is None or attachment.attachment_id or attachment.local_preview_url:
        return attachment
    upload = uploaded_id(attachment.path, turn_inputs, local_task_id)
    if upload is not None:
        mime = _sniffed(attachment.path) or attachment.mime_type
        return msgspec.structs.replace(
            attachment, attachment_id=upload, status="ready", mime_type=mime
        )
    preview = read_preview(attachment.path)
    if preview is None:
        return attachment
    mime = preview[5 : preview.index(";")]
    return msgspec.structs.replace(
        attachment, status="ready", local_preview_url=preview, mime_type=mime
    )


def with_previews(
    messages: Sequence[Message], turn_inputs: Path, local_task_id: str
) -> list[Message]:
    """``messages`` with their user attachments resolved (copies where anything changed)."""
    result: list[Message] = []
    for message in messages:
        if message.role != "user" or not message.attachments:
            result.append(message)
            continue
        attachments = [_resolved(a, turn_inputs, local_task_id) for a in message.attachments]
        if attachments == message.attachments:
            result.append(message)
        else:
            result.append(msgspec.structs.replace(message, attachments=attachments))
    return result
