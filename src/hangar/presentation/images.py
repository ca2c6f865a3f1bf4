"""What a user message's attachments look like in the transcript (RW-218..220).

:func:`attachment_views` turns a message's attachment records (JSON, as the API returns them)
into what the page shows, in the seed's precedence:

- a message with persisted attachments (uploads the hub keeps, ``attachmentId``) shows those
  — images from the hub's image route — and ignores the local-image mentions of the agent's
  prompt, so an upload and its temporary local path are never both shown (RW-218);
- only without such records are local previews (``localPreviewUrl``, a checked ``data:image``
  URL the executor made) the fallback (RW-219);
- a file without a usable preview is shown by its file name alone: a local path is never put
  on the page (RW-220); an image that fails to load is replaced by that name in the browser.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

DATA_IMAGE_PREFIXES = tuple(
    f"data:image/{kind};base64," for kind in ("png", "jpeg", "jpg", "gif", "webp")
)
UPLOAD_ROUTE = "/api/runtime-work/attachments/{}/content"


@dataclass(frozen=True)
class AttachmentView:
    name: str
    src: str | None = None
    """The image to show (the hub's route or a ``data:`` URL); ``None``: the name only."""


def _name(record: dict[str, Any]) -> str:
    name = str(record.get("name") or "attachment")
    return name.replace("\\", "/").rsplit("/", 1)[-1] or "attachment"  # never a path


def _upload(record: dict[str, Any]) -> AttachmentView:
    mime = str(record.get("mimeType") or "")
    src = (
        UPLOAD_ROUTE.format(quote(str(record["attachmentId"]), safe=""))
        if mime.startswith("image/")
        else None
    )
    return AttachmentView(_name(record), src)


def _local(record: dict[str, Any]) -> AttachmentView:
    preview = record.get("localPreviewUrl")
    usable = isinstance(preview, str) and preview.startswith(DATA_IMAGE_PREFIXES)
    return AttachmentView(_name(record), preview if usable else None)


def attachment_views(message: dict[str, Any]) -> list[AttachmentView]:
    """The attachments to show under a user message, in order."""
    records = [a for a in message.get("attachments") or () if isinstance(a, dict)]
    uploads = [a for a in records if a.get("attachmentId")]
    if uploads:
        return [_upload(a) for a in uploads]
    return [_local(a) for a in records]
