"""Codex rollout files for hub and browser tests, in the shape Codex 0.171 writes them.

A turn with local images is recorded the way the real CLI records ``codex -i shot.png`` (seen
in a rollout of the pinned CLI): a user ``response_item`` whose ``input_text`` parts wrap each
image as ``<image name=[Image #1] path="…">`` · ``input_image`` (a data URL) · ``</image>``,
then an ``item_completed`` ``UserMessage`` with a ``text`` and one ``local_image {path}`` per
image, the assistant's ``response_item`` and ``task_complete``.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BASE_TIME = datetime(2026, 11, 21, 8, 0, tzinfo=UTC)


def png(width: int = 6, height: int = 4, grey: int = 0x80) -> bytes:
    """A real (tiny, grey) PNG image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes([grey]) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@dataclass
class CodexSession:
    home: Path
    thread_id: str
    cwd: str
    start: datetime = BASE_TIME
    lines: int = 0
    turns: int = 0

    @property
    def path(self) -> Path:
        day = self.home / ".codex" / "sessions" / "2026" / "11" / "21"
        return day / f"rollout-2026-11-21T08-00-00-{self.thread_id}.jsonl"

    def _write(self, kind: str, payload: dict[str, Any]) -> None:
        moment = self.start + timedelta(seconds=5 * self.lines)
        stamp = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.lines += 1
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"timestamp": stamp, "type": kind, "payload": payload}) + "\n")

    def meta(self) -> CodexSession:
        self._write(
            "session_meta",
            {
                "id": self.thread_id,
                "session_id": self.thread_id,
                "cwd": self.cwd,
                "timestamp": "2026-11-21T08:00:00.000Z",
                "originator": "codex_exec",
                "cli_version": "0.171.0",
            },
        )
        return self

    def turn(self, text: str, reply: str, images: tuple[str, ...] = ()) -> CodexSession:
        """One request with local images (paths; a readable one is inlined as Codex does)."""
        self.turns += 1
        turn_id = f"{self.thread_id[:8]}-turn-{self.turns}"
        self._write("event_msg", {"type": "task_started", "turn_id": turn_id})
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": text}] if text else []
        for number, image in enumerate(images, 1):
            where = Path(image)
            data = where.read_bytes() if where.is_file() else png()
            url = "data:image/png;base64," + base64.b64encode(data).decode()
            parts += [
                {"type": "input_text", "text": f'<image name=[Image #{number}] path="{image}">'},
                {"type": "input_image", "image_url": url, "detail": "original"},
                {"type": "input_text", "text": "</image>"},
            ]
        self._write("response_item", {"type": "message", "role": "user", "content": parts})
        item = [{"type": "text", "text": text, "text_elements": []}] if text else []
        item += [{"type": "local_image", "path": image} for image in images]
        self._write(
            "event_msg",
            {
                "type": "item_completed",
                "thread_id": self.thread_id,
                "turn_id": turn_id,
                "item": {"type": "UserMessage", "id": f"{turn_id}-user", "content": item},
            },
        )
        self._write(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply, "annotations": []}],
            },
        )
        self._write(
            "event_msg",
            {"type": "task_complete", "turn_id": turn_id, "last_agent_message": reply},
        )
        return self
