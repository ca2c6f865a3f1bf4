"""Building normalized messages turn by turn, for the parsers of many agent formats.

A :class:`MessageLog` holds the messages parsed so far and remembers the first index that
changed since the last :meth:`MessageLog.take`, which is exactly what a
:class:`~hangar.agents.base.TranscriptProjector` must report. Whole-file parsers use the same
class and simply take once. One user request makes one user message and (at most) one
assistant message: every model step, tool call and reply of that request becomes a block of
that one assistant message, so a checklist always lands on the message of its request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from hangar.agents import peek
from hangar.agents.base import ProjectionDelta
from hangar.model import Message, TextBlock, ToolBlock, Usage
from hangar.model.messages import Block

JsonObject = dict[str, Any]
_ENCODER = msgspec.json.Encoder()
_MESSAGES = msgspec.json.Decoder(list[Message])


class MessageLog:
    """Messages in transcript order plus the first index touched since the last take."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.current: Message | None = None
        """The assistant message of the request being read, if it has one yet."""
        self.tools: dict[str, tuple[Message, ToolBlock]] = {}
        self._dirty: int | None = None

    # -- changes -------------------------------------------------------------------------
    def touch(self, message: Message) -> None:
        """Record that ``message`` changed (it is sent again by the next take)."""
        if self._dirty is None or message.index < self._dirty:
            self._dirty = message.index

    def user(
        self, msg_id: str, content: str, created_at: str | None = None, **fields: Any
    ) -> Message:
        """Append the user message that opens a new request."""
        message = Message(
            index=len(self.messages),
            id=msg_id,
            role="user",
            turn_id=msg_id,
            created_at=created_at,
            content=content,
            **fields,
        )
        self._append(message)
        self.current = None
        return message

    def assistant(self, msg_id: str, created_at: str | None = None) -> Message:
        """The assistant message of the current request, created on first use."""
        if self.current is not None:
            self.touch(self.current)
            return self.current
        turn_id = msg_id
        for earlier in reversed(self.messages):
            if earlier.role == "user":
                turn_id = earlier.turn_id
                break
        message = Message(
            index=len(self.messages),
            id=msg_id,
            role="assistant",
            turn_id=turn_id,
            created_at=created_at,
            blocks=[],
        )
        self._append(message)
        self.current = message
        return message

    def add_block(self, message: Message, block: Block) -> None:
        """Append a block; the last text block is the message's reply text."""
        if message.blocks is None:
            message.blocks = []
        message.blocks.append(block)
        if isinstance(block, TextBlock):
            message.content = block.text
        if isinstance(block, ToolBlock) and block.tool_use_id:
            self.tools[block.tool_use_id] = (message, block)
        self.touch(message)

    def tool(self, tool_use_id: str) -> ToolBlock | None:
        """The tool block with this id, marking its message changed."""
        found = self.tools.get(tool_use_id)
        if found is None:
            return None
        self.touch(found[0])
        return found[1]

    def add_usage(self, message: Message, usage: Usage) -> None:
        total = message.usage or Usage()
        message.usage = Usage(
            input_tokens=total.input_tokens + usage.input_tokens,
            output_tokens=total.output_tokens + usage.output_tokens,
            cache_read_tokens=total.cache_read_tokens + usage.cache_read_tokens,
            cache_write_tokens=total.cache_write_tokens + usage.cache_write_tokens,
            reasoning_tokens=total.reasoning_tokens + usage.reasoning_tokens,
        )
        self.touch(message)

    def truncate(self, length: int) -> None:
        """Drop every message from index ``length`` on (a rewind)."""
        if length >= len(self.messages):
            return
        del self.messages[length:]
        self.tools = {k: v for k, v in self.tools.items() if v[0].index < length}
        if self.current is not None and self.current.index >= length:
            self.current = None
        if self._dirty is None or length < self._dirty:
            self._dirty = length

    def reopen_last_reply(self) -> None:
        """After a rewind, let the next blocks continue the last message if it is an
        assistant reply (else the next assistant event opens a new one)."""
        last = self.messages[-1] if self.messages else None
        self.current = last if last is not None and last.role == "assistant" else None

    def _append(self, message: Message) -> None:
        self.messages.append(message)
        self.touch(message)

    # -- reading -------------------------------------------------------------------------
    def take(self) -> ProjectionDelta:
        """Messages changed since the last take, from the first changed index on.

        The messages handed out are copies: the log keeps mutating its own (a late tool
        result, a status) while a reader may be paging the ones it was given.
        """
        start = len(self.messages) if self._dirty is None else min(self._dirty, len(self.messages))
        self._dirty = None
        changed = self.messages[start:]
        if not changed:
            return ProjectionDelta(start, [])
        return ProjectionDelta(start, _MESSAGES.decode(_ENCODER.encode(changed)))


class SkipCounter:
    """Counts records that did not become messages, by record type."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, kind: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n


def decode_object(line: bytes | str, skipped: SkipCounter) -> JsonObject | None:
    """One JSON object from one line, or ``None`` (counted) when it is anything else."""
    if isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            skipped.add("invalid_utf8")
            return None
    else:
        text = line
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except ValueError:
        skipped.add("invalid_json")
        return None
    if not isinstance(value, dict):
        skipped.add("not_an_object")
        return None
    return value


def decode_document(data: bytes | str, skipped: SkipCounter) -> JsonObject | None:
    """A whole file (or stored value) that must hold one JSON object, or ``None`` when it
    does not: counted as ``invalid_json`` or ``not_an_object`` (a bare ``null`` is not
    counted)."""
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        skipped.add("invalid_json")
        return None
    if not isinstance(value, dict):
        if value is not None:
            skipped.add("not_an_object")
        return None
    return value


def iso_from_seconds(seconds: float) -> str:
    """Epoch seconds as an ISO-8601 UTC string ending in ``Z``."""
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


def iso_from_millis(value: object) -> str | None:
    """Epoch milliseconds (OpenCode, Kiro) as an ISO-8601 UTC string."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return iso_from_seconds(value / 1000)
    except (OverflowError, OSError, ValueError):
        return None


def iso_mtime(path: Path) -> str | None:
    """A file's modification time as an ISO-8601 UTC string; ``None`` if it cannot be read."""
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return None
    return iso_from_seconds(stamp)


def text_of(value: object) -> str:
    """Plain text from a string or a list of ``{text}`` / ``{type: text, text}`` parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [
            part["text"]
            for part in value
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "\n".join(texts)
    return ""


def latest_model(messages: list[Message], default: str | None = None) -> str | None:
    """The model of the latest message that names one, else ``default``."""
    return next((m.model for m in reversed(messages) if m.model), default)


def title_from(text: str | None, limit: int = 80) -> str | None:
    """A list title from a request: its first non-blank line, at most ``limit`` chars."""
    for line in (text or "").splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return None


def head_tail_records(
    path: Path, head_bytes: int = 16384, tail_bytes: int = 16384
) -> tuple[list[JsonObject], list[JsonObject]]:
    """JSON objects of the complete lines in a file's head and tail (discovery reads)."""
    skipped = SkipCounter()
    try:
        head = peek.head_lines(path, head_bytes)
        tail = peek.tail_lines(path, tail_bytes)
    except OSError:
        return [], []
    decode = (
        [decode_object(line, skipped) for line in head],
        [decode_object(line, skipped) for line in tail],
    )
    return [r for r in decode[0] if r], [r for r in decode[1] if r]


def as_map(value: object) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty one (tolerant field access)."""
    return value if isinstance(value, Mapping) else {}


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def decoded_arguments(raw: object) -> Any:
    """Tool-call arguments: a JSON string decoded (kept as text if it is not JSON), any
    other value as it is."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def output_text(value: object) -> str | None:
    """A tool result as display text: strings as they are, anything else as JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


_KINDS = {
    "bash": "shell",
    "shell": "shell",
    "run_shell_command": "shell",
    "execute_bash": "shell",
    "run_command": "shell",
    "read": "read",
    "read_file": "read",
    "list": "read",
    "ls": "read",
    "glob": "search",
    "grep": "search",
    "search": "search",
    "edit": "edit",
    "write": "edit",
    "multiedit": "edit",
    "fs_write": "edit",
    "patch": "patch",
    "apply_patch": "patch",
    "webfetch": "web",
    "fetch": "web",
    "web_fetch": "web",
    "task": "subagent",
    "agent": "subagent",
    "todowrite": "plan",
    "checklist": "plan",
    "write_todos": "plan",
}


def tool_kind(name: str) -> str | None:
    """A coarse display category from a tool name (see :class:`ToolBlock.kind`)."""
    return _KINDS.get(name.lower())


def running_tool(call_id: str, name: str | None, tool_input: Any) -> ToolBlock:
    """The block of a tool call whose result has not been read yet (``tool`` when the
    record names no tool)."""
    name = name or "tool"
    return ToolBlock(call_id, name, tool_input, status="running", kind=tool_kind(name))
