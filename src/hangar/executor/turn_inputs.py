"""Files sent with a turn, made ready on this device (RW-153..156, RW-283, RW-284).

A send names its files by record: ``attachmentId`` for a file uploaded to the hub (the executor
fetches it through the :data:`AttachmentFetcher` it was given, checks size and SHA-256, and keeps
a copy under ``$HANGAR_HOME/turn-inputs/<localTaskId>/<attachmentId>/``), or ``localPath`` from a
client on this same device (``hangar tasks send --image``). Either way the content is sniffed: a
file claiming an image type must be one (PNG, JPEG, GIF or WebP), and nothing larger than
:data:`MAX_FILE_BYTES` is handed to an agent. Each agent's control converts the files to its own
input (Codex ``localImage``/``mention``, Claude image blocks, OpenCode file parts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from hangar.agents.turns import InputFile
from hangar.errors import UsageError
from hangar.image_types import sniff_image
from hangar.private_files import create_private_file, make_private_dir
from hangar.protocol.turns import TurnAttachment

MAX_FILE_BYTES = 20 * 1024 * 1024
AttachmentFetcher = Callable[[str], bytes]
"""Returns the bytes of an uploaded attachment by id (raises when it is unknown)."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


def check_content(name: str, mime_type: str, head: bytes) -> str:
    """The MIME type to hand on: an image must be what it claims (content sniffing)."""
    actual = sniff_image(head)
    if mime_type.startswith("image/"):
        if actual is None:
            raise UsageError(f"{name}: the file is not an image (PNG, JPEG, GIF or WebP)")
        return actual
    return actual or mime_type


def safe_name(name: str) -> str:
    cleaned = _UNSAFE.sub("_", Path(name).name).strip(" .") or "attachment"
    return cleaned[:120]


class TurnInputs:
    def __init__(self, root: Path, fetch: AttachmentFetcher | None = None) -> None:
        self.root = root
        self.fetch = fetch

    def resolve(
        self, local_task_id: str, records: Sequence[TurnAttachment]
    ) -> tuple[InputFile, ...]:
        return tuple(self._one(local_task_id, record) for record in records)

    def _one(self, local_task_id: str, record: TurnAttachment) -> InputFile:
        if record.size > MAX_FILE_BYTES:
            raise UsageError(f"{record.name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        if record.local_path is not None:
            return self._local(record)
        if record.attachment_id is None:
            raise UsageError(f"{record.name}: an attachment needs an attachmentId or a localPath")
        if self.fetch is None:
            raise UsageError("this executor cannot fetch uploaded attachments")
        data = self.fetch(record.attachment_id)
        if len(data) != record.size:
            raise UsageError(f"{record.name}: the upload is {len(data)} bytes, not {record.size}")
        import hashlib  # OpenSSL: loaded by the one path that checks an upload

        if record.sha256 and hashlib.sha256(data).hexdigest() != record.sha256:
            raise UsageError(f"{record.name}: the upload does not match its checksum")
        mime = check_content(record.name, record.mime_type, data[:16])
        folder = self.root / safe_name(local_task_id) / safe_name(record.attachment_id)
        for private in (self.root, folder.parent, folder):  # as private as HANGAR_HOME
            make_private_dir(private)
        path = folder / safe_name(record.name)
        create_private_file(path)
        path.write_bytes(data)
        return InputFile(record.name, path, mime)

    def _local(self, record: TurnAttachment) -> InputFile:
        path = Path(record.local_path or "")
        if not path.is_absolute():
            raise UsageError(f"{record.name}: a local attachment needs an absolute path")
        try:
            stat = path.stat()
        except OSError as exc:
            raise UsageError(f"{record.name}: cannot read {path}: {exc.strerror}") from None
        if not path.is_file():
            raise UsageError(f"{record.name}: {path} is not a file")
        if stat.st_size > MAX_FILE_BYTES:
            raise UsageError(f"{record.name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        with path.open("rb") as handle:
            head = handle.read(16)
        return InputFile(record.name, path, check_content(record.name, record.mime_type, head))
