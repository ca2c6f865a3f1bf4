"""Qwen Code: ``~/.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl`` (archived ones in
``chats/archive/``), append-only and read incrementally.

Records share a Claude-like envelope (``uuid, parentUuid, sessionId, timestamp, type,
cwd``) around Gemini-style ``message.parts``. A ``system``/``rewind`` record moves the
active branch back to ``systemPayload.targetUuid``: everything projected after that record
is dropped (a delta with a smaller ``start``). Some writers glue two objects onto one line;
each object on a line is read. The session id is the file name's: a record carrying
another id does not move the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hangar.agents.base import (
    UNRESUMABLE,
    AgentStore,
    Carry,
    SessionSource,
    SessionSummary,
    TranscriptProjector,
    Unresumable,
)
from hangar.agents.json_fields import JsonObject, as_int, as_map, as_str
from hangar.agents.json_records import SkipCounter
from hangar.agents.message_log import LogProjector, latest_model
from hangar.agents.peek import head_bytes
from hangar.agents.text import title_from
from hangar.agents.tool_kinds import running_tool
from hangar.agents.tool_output import output_text
from hangar.model import CompactionBlock, TextBlock, ThinkingBlock, Usage
from hangar.model.messages import UnknownBlock

RUNTIME = "qwen"
HEAD_BYTES = 8192
_INJECTED_PREFIX = "<qwen:"
_TOOL_STATUS = {"success": "done", "error": "failed", "cancelled": "cancelled"}
_IGNORED_SYSTEM = {"ui_telemetry", "slash_command", "session_artifact_snapshot", "at_command"}
_DECODER = json.JSONDecoder()


def decode_objects(line: bytes, skipped: SkipCounter) -> list[JsonObject]:
    """Every JSON object on one line (writers sometimes glue objects together)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        skipped.add("invalid_utf8")
        return []
    found: list[JsonObject] = []
    pos, end = 0, len(text)
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except ValueError:
            skipped.add("invalid_json")
            break
        if isinstance(value, dict):
            found.append(value)
        else:
            skipped.add("not_an_object")
    return found


class QwenProjector(LogProjector):
    """Incremental reader of one Qwen Code chat file (resumable at each request that
    starts its line; a turn inherits the record count, which names unnamed records)."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped = SkipCounter()
        self.after: dict[str, tuple[int, int]] = {}
        """Per record uuid: (record sequence, message count after it)."""
        self.titles: list[tuple[int, str]] = []
        self.seq = 0
        self.cwd: str | None = None
        self.created: str | None = None
        self.updated: str | None = None
        self._first_on_line = True

    def carry(self) -> Carry | Unresumable:
        # A request glued after another object on its line cannot be resumed at: the
        # line would be read again from its start.
        return {"seq": self.seq - 1} if self._first_on_line else UNRESUMABLE

    def apply_carry(self, carry: Carry) -> None:
        seq = carry.get("seq") if isinstance(carry, dict) else None
        self.seq = seq if isinstance(seq, int) else 0

    def feed(self, line: bytes) -> None:
        for position, record in enumerate(decode_objects(line, self.skipped)):
            self._first_on_line = position == 0
            self._record(record)

    def _record(self, record: JsonObject) -> None:
        self.seq += 1
        kind = record.get("type")
        subtype = as_str(record.get("subtype"))
        when = as_str(record.get("timestamp"))
        uuid = as_str(record.get("uuid")) or f"record-{self.seq}"
        payload = record.get("systemPayload")
        payload = as_map(payload)
        if subtype != "session_artifact_snapshot":
            self.cwd = as_str(record.get("cwd")) or self.cwd
        self.created = self.created or when
        self.updated = when or self.updated
        if kind == "system" and subtype == "rewind":
            self._rewind(as_str(payload.get("targetUuid")))
            return
        if kind == "user" and subtype != "notification":
            self._user(uuid, when, record, payload)
        elif kind == "user":
            target = self.log.assistant(uuid, when)
            text = as_str(payload.get("displayText")) or _texts(record)
            self.log.add_block(target, UnknownBlock("qwen.notification", {"text": text}))
        elif kind == "assistant":
            self._assistant(uuid, when, record)
        elif kind == "tool_result":
            self._tool_result(record)
        elif kind == "system" and subtype == "custom_title":
            title = as_str(payload.get("customTitle"))
            if title:
                self.titles.append((self.seq, title))
        elif kind == "system" and subtype == "chat_compression":
            target = self.log.assistant(uuid, when)
            self.log.add_block(target, CompactionBlock(as_str(payload.get("summary"))))
        elif not (kind == "system" and subtype in _IGNORED_SYSTEM):
            self.skipped.add(f"{kind}.{subtype}" if subtype else str(kind))
        self.after[uuid] = (self.seq, self.log.count)

    def _rewind(self, target: str | None) -> None:
        mark = self.after.get(target or "")
        if mark is None:
            self.skipped.add("rewind_unknown_target")
            return
        seq, count = mark
        self.log.truncate(count)
        self.log.reopen_last_reply()
        self.titles = [t for t in self.titles if t[0] <= seq]

    def _user(
        self, uuid: str, when: str | None, record: JsonObject, payload: Mapping[str, Any]
    ) -> None:
        # displayText is what the user typed; hook context is injected as extra parts.
        text = as_str(payload.get("displayText")) or _texts(record)
        self.log.user(uuid, text, when)

    def _assistant(self, uuid: str, when: str | None, record: JsonObject) -> None:
        target = self.log.assistant(uuid, when)
        target.model = as_str(record.get("model")) or target.model
        for part in _parts(record):
            call = part.get("functionCall")
            if isinstance(call, Mapping):
                block = running_tool(
                    as_str(call.get("id")) or uuid, as_str(call.get("name")), call.get("args")
                )
                self.log.add_block(target, block)
            elif isinstance(part.get("text"), str) and part["text"]:
                is_thought = part.get("thought") is True
                block_t = ThinkingBlock(part["text"]) if is_thought else TextBlock(part["text"])
                self.log.add_block(target, block_t)
        usage = record.get("usageMetadata")
        if isinstance(usage, Mapping) and usage:
            self.log.add_usage(
                target,
                Usage(
                    input_tokens=as_int(usage.get("promptTokenCount")),
                    output_tokens=as_int(usage.get("candidatesTokenCount")),
                    cache_read_tokens=as_int(usage.get("cachedContentTokenCount")),
                    reasoning_tokens=as_int(usage.get("thoughtsTokenCount")),
                ),
            )

    def _tool_result(self, record: JsonObject) -> None:
        result = record.get("toolCallResult")
        result = as_map(result)
        for part in _parts(record):
            response = part.get("functionResponse")
            if not isinstance(response, Mapping):
                continue
            call_id = as_str(response.get("id")) or as_str(result.get("callId")) or ""
            block = self.log.tool(call_id)
            if block is None:
                self.skipped.add("tool_result.orphan")
                continue
            body = response.get("response")
            value = (
                body.get("output", body.get("error", body)) if isinstance(body, Mapping) else body
            )
            display = result.get("resultDisplay")
            block.output = output_text(value) if value not in (None, {}) else output_text(display)
            status = _TOOL_STATUS.get(as_str(result.get("status")) or "success", "done")
            block.status = status  # type: ignore[assignment]
            block.is_error = status == "failed"

    def summary(self) -> SessionSummary:
        messages = self.log.messages
        return SessionSummary(
            title=self.titles[-1][1] if self.titles else None,
            workspace_path=self.cwd,
            created_at=self.created,
            updated_at=self.updated,
            model=latest_model(messages),
            message_count=self.log.count,
            skipped=dict(self.skipped.counts),
        )


def _parts(record: JsonObject) -> list[JsonObject]:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, Mapping) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _texts(record: JsonObject) -> str:
    texts = [
        p["text"]
        for p in _parts(record)
        if isinstance(p.get("text"), str) and not p["text"].lstrip().startswith(_INJECTED_PREFIX)
    ]
    return "\n".join(texts)


def _head_record(path: Path) -> JsonObject:
    head = head_bytes(path, HEAD_BYTES)
    if head is None:
        return {}
    records = decode_objects(head.split(b"\n", 1)[0], SkipCounter())
    return records[0] if records else {}


class QwenStore(AgentStore):
    runtime = RUNTIME
    append_only = True

    def session_paths(self) -> Iterator[Path]:
        """Every session file, from directory listings only."""
        projects = self.home.root / "projects"
        yield from sorted(projects.glob("*/chats/*.jsonl"))
        yield from sorted(projects.glob("*/chats/archive/*.jsonl"))

    def discover(self) -> Iterator[SessionSource]:
        return self.describe_each(self.session_paths())

    def describe(self, path: Path) -> SessionSource | None:
        archived = path.parent.name == "archive"
        head = _head_record(path)
        first = head if head.get("type") == "user" else {}
        payload = as_map(first.get("systemPayload"))
        title = title_from(as_str(payload.get("displayText")) or _texts(first))
        return SessionSource(
            runtime=RUNTIME,
            session_id=path.stem,
            path=path,
            runtime_handle={"sessionId": path.stem},
            title=title,
            workspace_path=as_str(head.get("cwd")),
            created_at=as_str(head.get("timestamp")),
            model=as_str(head.get("model")),
            archived=archived,
        )

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        return QwenProjector()
