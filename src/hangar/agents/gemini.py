"""Gemini CLI: ``~/.gemini/tmp/<project hash>/chats/session-*.json`` and ``*.jsonl``.

Legacy sessions are one ``ConversationRecord`` JSON file rewritten whole; newer ones are
JSONL: a metadata line, one ``MessageRecord`` per line, ``{"$set": {…}}`` metadata updates
and ``{"$rewindTo": id}``, which removes the message ``id`` and everything after it. A
record whose id was already seen replaces the earlier one. The JSONL projector handles
both by re-projecting from the first affected request, so a delta may start earlier than
the previous end (the projector contract allows it). Because one store serves both
layouts, it answers per source (:meth:`GeminiStore.reads_incrementally`): JSONL files are
read incrementally with :class:`GeminiJsonlProjector`, legacy JSON files by signature.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hangar.agents.base import (
    AgentStore,
    Carry,
    LoadedSession,
    SessionSource,
    SessionSummary,
    TranscriptProjector,
)
from hangar.agents.json_fields import JsonObject, as_int, as_map, as_str
from hangar.agents.json_records import SkipCounter, decode_document, decode_object
from hangar.agents.message_log import LogProjector, MessageLog, latest_model
from hangar.agents.peek import head_bytes, head_tail_records
from hangar.agents.text import content_text, title_from
from hangar.agents.tool_kinds import tool_kind
from hangar.agents.tool_output import output_text
from hangar.model import Attachment, ImageBlock, TextBlock, ThinkingBlock, ToolBlock, Usage
from hangar.model.messages import UnknownBlock
from hangar.regular_files import read_regular_bytes

RUNTIME = "gemini"
MAX_FILE_BYTES = 256 * 1024 * 1024
HEAD_BYTES = 4096
_TOOL_STATUS = {"success": "done", "error": "failed", "cancelled": "cancelled"}


class _Projection:
    """Message records replayed into a :class:`MessageLog`, rewindable."""

    def __init__(self, skipped: SkipCounter, log: MessageLog | None = None) -> None:
        self.log = log if log is not None else MessageLog()
        self.skipped = skipped
        self.record_base = 0
        """Records before ``records[0]`` (after a resume): unnamed records are numbered
        across the whole file."""
        self.applying = 0
        """Position of the record being applied."""
        self.records: list[JsonObject] = []
        self.before: list[int] = []
        """Message count before each record was applied."""
        self.turn_start: list[int] = []
        """Index of the record that opened each record's request."""

    def add(self, record: JsonObject) -> None:
        rid = as_str(record.get("id"))
        if rid is not None:
            for pos, earlier in enumerate(self.records):
                if earlier.get("id") == rid:
                    self.records[pos] = record
                    self._replay_from(pos)
                    return
        self.records.append(record)
        self._apply(len(self.records) - 1)

    def rewind(self, rid: object) -> None:
        pos = next((i for i, r in enumerate(self.records) if r.get("id") == rid), None)
        if pos is None:
            self.skipped.add("rewind_unknown_id")
            return
        del self.records[pos:]
        self._replay_from(pos)

    def _replay_from(self, pos: int) -> None:
        start = self.turn_start[pos] if pos < len(self.turn_start) else pos
        if start < pos and _kind(self.records[start]) == "user":
            # Keep the request's user message; only its reply is rebuilt.
            start += 1
        self.log.truncate(self.before[start] if start < len(self.before) else self.log.count)
        self.log.current = None
        if start > 0 and _kind(self.records[start - 1]) != "user":
            # Re-attach to the open assistant message of the request before ``start``.
            self.log.reopen_last_reply()
        del self.before[start:]
        del self.turn_start[start:]
        for n in range(start, len(self.records)):
            self._apply(n)

    def _apply(self, n: int) -> None:
        record = self.records[n]
        self.applying = n
        self.before.append(self.log.count)
        kind = _kind(record)
        opens = kind == "user"
        self.turn_start.append(n if opens or n == 0 else self.turn_start[n - 1])
        rid = as_str(record.get("id")) or f"record-{self.record_base + n}"
        when = as_str(record.get("timestamp"))
        if kind == "user":
            text = record.get("displayContent") or record.get("content") or record.get("parts")
            attachments = _attachments(record.get("parts"))
            self.log.user(rid, content_text(text), when, attachments=attachments or None)
        elif kind in ("gemini", "model"):
            self._gemini(rid, when, record)
        elif kind in ("info", "warning", "error"):
            message = self.log.assistant(rid, when)
            raw = {"content": content_text(record.get("content"))}
            self.log.add_block(message, UnknownBlock(f"gemini.{kind}", raw))
            if kind == "error":
                message.error = raw["content"]
        else:
            self.skipped.add(f"type.{kind}")

    def _gemini(self, rid: str, when: str | None, record: Mapping[str, Any]) -> None:
        message = self.log.assistant(rid, when)
        message.model = as_str(record.get("model")) or message.model
        for thought in record.get("thoughts") or []:
            if isinstance(thought, Mapping):
                subject, text = as_str(thought.get("subject")), as_str(thought.get("description"))
                body = f"**{subject}** {text or ''}".strip() if subject else text
                if body:
                    self.log.add_block(message, ThinkingBlock(body))
        content = record.get("content")
        parts = record.get("parts")
        text = content_text(content if content not in (None, "") else parts)
        if text:
            self.log.add_block(message, TextBlock(text))
        for call in record.get("toolCalls") or []:
            if isinstance(call, Mapping):
                self.log.add_block(message, _tool(call))
        for part in parts if isinstance(parts, list) else []:
            inline = part.get("inlineData") if isinstance(part, Mapping) else None
            if isinstance(inline, Mapping) and isinstance(inline.get("data"), str):
                mime = as_str(inline.get("mimeType")) or "application/octet-stream"
                payload = f"data:{mime};base64,{inline['data']}"
                self.log.add_block(message, ImageBlock(render_payload=payload, mime_type=mime))
        tokens = record.get("tokens")
        if isinstance(tokens, Mapping):
            usage = Usage(
                input_tokens=as_int(tokens.get("input")),
                output_tokens=as_int(tokens.get("output")),
                cache_read_tokens=as_int(tokens.get("cached")),
                reasoning_tokens=as_int(tokens.get("thoughts")),
            )
            self.log.add_usage(message, usage)


def _kind(record: Mapping[str, Any]) -> object:
    """``type`` of a MessageRecord (``role`` in the oldest ``history`` shape)."""
    return record.get("type") or record.get("role")


def _attachments(parts: object) -> list[Attachment]:
    found: list[Attachment] = []
    for part in parts if isinstance(parts, list) else []:
        inline = part.get("inlineData") if isinstance(part, Mapping) else None
        if isinstance(inline, Mapping):
            found.append(Attachment(name="inline data", mime_type=as_str(inline.get("mimeType"))))
    return found


def _tool(call: Mapping[str, Any]) -> ToolBlock:
    name = as_str(call.get("name")) or "tool"
    status = _TOOL_STATUS.get(as_str(call.get("status")) or "", "running")
    output: str | None = None
    for result in call.get("result") or []:
        response = result.get("functionResponse") if isinstance(result, Mapping) else None
        if isinstance(response, Mapping) and isinstance(response.get("response"), Mapping):
            body = response["response"]
            value = body.get("output", body.get("error", body))
            output = output_text(value)
    if output is None:
        output = output_text(call.get("resultDisplay"))
    return ToolBlock(
        tool_use_id=as_str(call.get("id")) or "",
        name=name,
        input=call.get("args"),
        output=output,
        status=status,  # type: ignore[arg-type]
        is_error=status == "failed",
        kind=tool_kind(name),
    )


class GeminiJsonlProjector(LogProjector):
    """Incremental reader of one Gemini JSONL chat file (resumable at each request; a
    turn inherits the number of records before it, which names unnamed records)."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped = SkipCounter()
        self.projection = _Projection(self.skipped, self.log)
        self.meta: JsonObject = {}
        self._first = True

    def carry(self) -> Carry:
        return {"records": self.projection.record_base + self.projection.applying}

    def apply_carry(self, carry: Carry) -> None:
        records = carry.get("records") if isinstance(carry, dict) else None
        self.projection.record_base = records if isinstance(records, int) else 0
        self._first = False  # the metadata line is the file's first, never a boundary

    def feed(self, line: bytes) -> None:
        record = decode_object(line, self.skipped)
        if record is None:
            self._first = False
            return
        if self._first and "type" not in record and "sessionId" in record:
            self.meta.update(record)
        elif isinstance(record.get("$set"), Mapping):
            self.meta.update(record["$set"])
        elif "$rewindTo" in record:
            self.projection.rewind(record["$rewindTo"])
        elif "type" in record:
            self.projection.add(record)
        else:
            self.skipped.add("unknown_record")
        self._first = False

    def summary(self) -> SessionSummary:
        return _summary(self.meta, self.projection, self.skipped)


def _summary(
    meta: Mapping[str, Any], projection: _Projection, skipped: SkipCounter
) -> SessionSummary:
    messages = projection.log.messages
    title = as_str(meta.get("summary"))
    return SessionSummary(
        title=title,
        workspace_path=None,
        created_at=as_str(meta.get("startTime")) or as_str(meta.get("start_time")),
        updated_at=as_str(meta.get("lastUpdated")),
        model=latest_model(messages),
        message_count=projection.log.count,
        skipped=dict(skipped.counts),
    )


_HEAD_FIELD = re.compile(rb'"(sessionId|startTime|lastUpdated)"\s*:\s*"([^"]*)"')


def _head_fields(path: Path) -> dict[str, str]:
    head = head_bytes(path, HEAD_BYTES)
    if head is None:
        return {}
    fields: dict[str, str] = {}
    for match in _HEAD_FIELD.finditer(head):
        fields.setdefault(match.group(1).decode(), match.group(2).decode("utf-8", "replace"))
    return fields


class GeminiStore(AgentStore):
    runtime = RUNTIME
    append_only = False

    def _files(self) -> Iterator[Path]:
        for pattern in ("tmp/*/chats/*.json", "tmp/*/chats/*.jsonl"):
            yield from sorted(self.home.root.glob(pattern))

    def session_paths(self) -> Iterator[Path]:
        """Every session file, from directory listings only."""
        return self._files()

    def discover(self) -> Iterator[SessionSource]:
        return self.describe_each(self.session_paths())

    def describe(self, path: Path) -> SessionSource | None:
        fields = _head_fields(path)
        project_root = path.parent.parent / ".project_root"
        workspace: str | None = None
        if project_root.is_file():
            try:
                workspace = read_regular_bytes(project_root).decode("utf-8").strip() or None
            except (OSError, UnicodeDecodeError):
                workspace = None
        session_id = fields.get("sessionId") or path.stem
        title: str | None = None
        updated = fields.get("lastUpdated")
        if path.suffix == ".jsonl":
            head, tail = head_tail_records(path)
            user = next((r for r in head if r.get("type") == "user"), {})
            title = title_from(content_text(user.get("displayContent") or user.get("content")))
            for record in reversed(tail):
                change = as_map(record.get("$set"))
                stamp = as_str(change.get("lastUpdated")) or as_str(record.get("timestamp"))
                if stamp:
                    updated = stamp
                    break
        return SessionSource(
            runtime=RUNTIME,
            session_id=session_id,
            path=path,
            runtime_handle={"sessionId": session_id, "path": str(path)},
            title=title,
            workspace_path=workspace,
            created_at=fields.get("startTime"),
            updated_at=updated,
        )

    def reads_incrementally(self, source: SessionSource) -> bool:
        """JSONL logs are append-only (in bytes); legacy JSON files are rewritten."""
        return source.path.suffix == ".jsonl"

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        """The incremental reader, for JSONL sources only."""
        if source.path.suffix != ".jsonl":
            return super().new_projector(source)
        return GeminiJsonlProjector()

    def load(self, source: SessionSource) -> LoadedSession:
        try:
            if source.path.stat().st_size > MAX_FILE_BYTES:
                skipped = SkipCounter()
                skipped.add("oversized_file")
                return LoadedSession([], SessionSummary(skipped=skipped.counts))
            data = read_regular_bytes(source.path)
        except FileNotFoundError:
            return LoadedSession([], SessionSummary(status="missing"))
        if source.path.suffix == ".jsonl":
            projector = GeminiJsonlProjector()
            for line in data.split(b"\n"):
                projector.feed(line)
            messages = projector.take().messages
            return LoadedSession(messages, projector.summary())
        return load_conversation(data)


def load_conversation(data: bytes) -> LoadedSession:
    """A legacy ``ConversationRecord`` (or its older ``history`` shape)."""
    skipped = SkipCounter()
    projection = _Projection(skipped)
    record = decode_document(data, skipped)
    if record is None:
        return LoadedSession([], _summary({}, projection, skipped))
    entries = record.get("messages")
    if not isinstance(entries, list):
        entries = record.get("history")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            projection.add(entry)
        else:
            skipped.add("invalid_message")
    meta = {k: v for k, v in record.items() if k not in ("messages", "history")}
    return LoadedSession(list(projection.log.messages), _summary(meta, projection, skipped))
