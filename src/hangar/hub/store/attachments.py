"""Files uploaded to the hub to go with a continued task's next message (RW-153..156).

An upload is checked before it is kept: at most :data:`MAX_BYTES`, one of :data:`ALLOWED`
types, and its bytes must be what the type claims (images by their magic bytes, text as UTF-8,
PDF by its header) — the type the browser sent is never trusted alone. The bytes go to
``<root>/<id>`` (written once, read-only after), the row to ``attachments`` with the uploader,
the SHA-256 and ``state: ready``. A send may name only ``ready`` attachments of the same owner
(:func:`for_send`); the executor receives metadata and fetches the bytes through :meth:`read`.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.errors import HangarError, NotFoundError, UsageError
from hangar.hub.store.schema import attachments
from hangar.hub.store.workspaces import Workspace, iso
from hangar.hub.store.writes import transaction
from hangar.image_types import sniff_image
from hangar.private_files import make_private_dir

MAX_BYTES = 20 * 1024 * 1024
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
TEXT_TYPES = ("text/plain", "text/markdown", "text/csv", "application/json")
ALLOWED = (*IMAGE_TYPES, *TEXT_TYPES, "application/pdf")
_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
    "application/pdf": (b"%PDF-",),
}


@dataclass(eq=False)
class UnsupportedAttachment(HangarError):
    """An upload of a type hangar does not hand to agents, or whose bytes are not that type."""

    code: ClassVar[str] = "unsupported_media_type"
    http_status: ClassVar[int] = 415


@dataclass(eq=False)
class AttachmentTooLarge(HangarError):
    code: ClassVar[str] = "payload_too_large"
    http_status: ClassVar[int] = 413

    def render(self) -> str:
        return self.message or f"an attachment may be at most {MAX_BYTES // (1024 * 1024)} MB"


def sniff(data: bytes, claimed: str) -> str:
    """The checked type of ``data`` uploaded as ``claimed`` (raises when they disagree)."""
    claimed = claimed.split(";", 1)[0].strip().lower()
    if claimed not in ALLOWED:
        allowed = ", ".join(ALLOWED)
        raise UnsupportedAttachment(
            f"attachments of type {claimed or '?'} are not accepted ({allowed})"
        )
    magics = _MAGIC.get(claimed)
    if magics is not None:
        ok = any(data.startswith(m) for m in magics)
        if claimed == "image/webp":
            ok = ok and data[8:12] == b"WEBP"
        if not ok:
            raise UnsupportedAttachment(f"the file's content is not {claimed}")
        return claimed
    if any(data.startswith(m) for ms in _MAGIC.values() for m in ms):
        raise UnsupportedAttachment(f"the file's content is binary, not {claimed}")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise UnsupportedAttachment(f"the file is not UTF-8 text ({claimed})") from None
    return claimed


def _json(row: Any) -> dict[str, Any]:
    return {
        "attachmentId": row.id,
        "name": row.name,
        "mimeType": row.mime_type,
        "size": row.size,
        "sha256": row.sha256,
        "state": row.state,
        "createdAt": iso(row.created_at),
    }


class AttachmentStore:
    def __init__(self, engine: Engine, root: Path) -> None:
        self.engine = engine
        self.root = root

    def save(
        self, workspace: Workspace, owner_id: str, name: str, mime: str, data: bytes
    ) -> dict[str, Any]:
        if len(data) > MAX_BYTES:
            raise AttachmentTooLarge()
        if not data:
            raise UsageError("the file is empty")
        name = Path(name.replace("\\", "/")).name.strip()[:255] or "attachment"
        checked = sniff(data, mime)
        attachment_id = uuid.uuid4().hex
        make_private_dir(self.root)  # uploads are as private as the rest of HANGAR_HOME
        path = self.root / attachment_id
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        row = {
            "id": attachment_id,
            "workspace_id": workspace.id,
            "owner_id": owner_id,
            "name": name,
            "mime_type": checked,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "state": "ready",
            "created_at": datetime.now(UTC),
        }
        with transaction(self.engine) as conn:
            conn.execute(attachments.insert().values(**row))
            stored = conn.execute(
                attachments.select().where(attachments.c.id == attachment_id)
            ).one()
        return _json(stored)

    def for_send(self, workspace: Workspace, owner_id: str, ids: list[str]) -> list[dict[str, Any]]:
        """The metadata of ``ids`` for the executor: each must be ready and the owner's."""
        if not ids:
            return []
        with self.engine.connect() as conn:
            rows = {
                r.id: r
                for r in conn.execute(
                    sa.select(attachments).where(
                        attachments.c.id.in_(ids), attachments.c.workspace_id == workspace.id
                    )
                )
            }
        found = []
        for attachment_id in ids:
            row = rows.get(attachment_id)
            if row is None or row.owner_id != owner_id:
                raise NotFoundError(kind="attachment", key=attachment_id)
            if row.state != "ready":
                raise UsageError(f"attachment {attachment_id} is not ready ({row.state})")
            found.append(_json(row))
        return found

    def read(self, attachment_id: str) -> bytes:
        """The bytes of an upload (what the executor fetches)."""
        if not attachment_id.isalnum():
            raise NotFoundError(kind="attachment", key=attachment_id)
        try:
            return (self.root / attachment_id).read_bytes()
        except FileNotFoundError:
            raise NotFoundError(kind="attachment", key=attachment_id) from None

    def image(self, workspace: Workspace, owner_id: str, attachment_id: str) -> tuple[str, bytes]:
        """``(mime, bytes)`` of an uploaded image of this owner, for a transcript preview.

        Only images of the same workspace and owner are served (anything else is "not
        found", so ids of other users' files reveal nothing); the type is the one checked at
        upload, sniffed again so a file changed on disk is never served as an image."""
        missing = NotFoundError(kind="attachment", key=attachment_id)
        if not attachment_id.isalnum():
            raise missing
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(attachments).where(
                    attachments.c.id == attachment_id,
                    attachments.c.workspace_id == workspace.id,
                )
            ).one_or_none()
        if row is None or row.owner_id != owner_id or row.mime_type not in IMAGE_TYPES:
            raise missing
        data = self.read(attachment_id)
        if sniff_image(data[:16]) != row.mime_type:
            raise missing
        return row.mime_type, data
