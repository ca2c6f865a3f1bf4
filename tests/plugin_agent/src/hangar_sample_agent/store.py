"""The store facet of the sample agent: discovery from a directory listing, a projector fed
one complete line at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from hangar.agents.base import (
    AgentStore,
    ProjectionDelta,
    SessionSource,
    SessionSummary,
    TranscriptProjector,
)
from hangar.model import Message, TextBlock


class NotebookProjector(TranscriptProjector):
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.first_new = 0
        self.skipped = 0
        self.cwd: str | None = None

    def feed(self, line: bytes) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            self.skipped += 1
            return
        if not isinstance(record, dict) or record.get("role") not in ("user", "assistant"):
            self.skipped += 1
            return
        self.cwd = self.cwd or record.get("cwd")
        index = len(self.messages)
        text = str(record.get("text") or "")
        role = record["role"]
        self.messages.append(
            Message(
                index=index,
                id=f"m{index}",
                role=role,
                turn_id=f"t{index // 2}",
                created_at=str(record.get("time") or ""),
                content=text,
                blocks=[TextBlock(text=text)] if role == "assistant" else None,
            )
        )

    def take(self) -> ProjectionDelta:
        delta = ProjectionDelta(self.first_new, self.messages[self.first_new :])
        self.first_new = len(self.messages)
        return delta

    def summary(self) -> SessionSummary:
        first = next((m.content for m in self.messages if m.role == "user"), None)
        skipped = {"invalid": self.skipped} if self.skipped else {}
        return SessionSummary(
            title=first,
            workspace_path=self.cwd,
            message_count=len(self.messages),
            skipped=skipped,
        )


class NotebookStore(AgentStore):
    runtime = "notebook"
    append_only = True

    def session_paths(self) -> Iterator[Path]:
        folder = self.home.root / "sessions"
        if folder.is_dir():
            yield from sorted(folder.glob("*.jsonl"))

    def describe(self, path: Path) -> SessionSource | None:
        try:
            head = path.open("rb").readline()
            first = json.loads(head) if head.strip() else {}
        except (OSError, ValueError):
            return None
        stamp = str(first.get("time") or "") or None
        return SessionSource(
            runtime=self.runtime,
            session_id=path.stem,
            path=path,
            runtime_handle={"sessionId": path.stem},
            title=str(first.get("text") or "")[:80] or None,
            workspace_path=first.get("cwd"),
            created_at=stamp,
            updated_at=stamp,
        )

    def discover(self) -> Iterator[SessionSource]:
        yield from self.describe_each(self.session_paths())

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        return NotebookProjector()
