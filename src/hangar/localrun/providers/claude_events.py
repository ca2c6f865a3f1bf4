"""Claude Code transcript lines → run messages, for hook-confirmed sessions only (LR-205..220).

:class:`ClaudeTranscriptTracker` follows exactly the transcripts the SessionStart hook reported
(several per run after ``/clear`` or a resume, LR-180) and never looks for files on its own
(LR-172, LR-181). A resumed session is read from the file's end at the time of the report, so
lines written before this run are not reported again. Lines are deduplicated by ``uuid``.

Mapping (anchors §A.2): user text → ``user_input`` (``isMeta`` and local-command output
dropped; ``<command-name>`` with arguments → ``/cmd args`` marked commentable, without → not
reported and the turn is not commentable); assistant ``text`` → ``text``, or ``final`` for the
turn's last text when the message ended with ``end_turn`` (or a ``turn_duration`` /
``stop_hook_summary`` line follows) and the turn has commentable input; ``thinking`` →
``thinking``; ``tool_use`` → ``tool_use`` with Claude's own tool name; ``tool_result`` →
``tool_result`` named through ``tool_use_id``; ``message.usage`` → usage per model (by
message id, growing counts only). sourceKeys: ``claude:session:SID:line:UUID:{user|text|final|
thinking:i|tool-use:ID|tool-result:ID}``.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hangar.localrun.providers.base import MessageSink, UsageSink
from hangar.model.run_messages import SOURCE_CLAUDE, MessageType, RunMessage, UsageEntry

PROVIDER = "claude"
_COMMAND = re.compile(r"<command-name>\s*/?([^<\s]+)\s*</command-name>")
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_LOCAL_OUTPUT = ("<local-command-stdout>", "<local-command-caveat>", "<local-command-stderr>")


@dataclass
class _Session:
    session_id: str
    path: Path
    offset: int
    partial: bytes = b""


@dataclass
class _Pending:
    session_id: str
    uuid: str
    text: str
    end_turn: bool
    turn_key: str


@dataclass
class ClaudeTranscriptTracker:
    reporter: MessageSink
    usage: UsageSink
    sessions: dict[str, _Session] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    tool_names: dict[str, str] = field(default_factory=dict)
    active_ms: int = 0
    _usage_seen: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    _turn_key: str = ""
    _turn_commentable: bool = False
    _pending: _Pending | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def follow(self, session_id: str, path: Path, source: str) -> None:
        """Start following a hook-reported session (``source``: startup|resume|clear|compact)."""
        with self._lock:
            if session_id in self.sessions and self.sessions[session_id].path == path:
                return
            start = 0
            if source in ("resume", "compact") and path.exists():
                start = path.stat().st_size  # earlier lines belong to earlier runs
            self.sessions[session_id] = _Session(session_id, path, start)

    def poll(self) -> None:
        """Read what every followed transcript gained since the last poll."""
        with self._lock:
            for session in list(self.sessions.values()):
                self._read(session)

    def _read(self, session: _Session) -> None:
        try:
            with session.path.open("rb") as handle:
                handle.seek(session.offset)
                data = handle.read()
        except FileNotFoundError:
            return
        if not data:
            return
        session.offset += len(data)
        data = session.partial + data
        *lines, session.partial = data.split(b"\n")
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                self._line(session.session_id, record)

    # -- mapping --------------------------------------------------------------------------
    def _report(self, kind: MessageType, sid: str, uuid: str, suffix: str, **fields: Any) -> None:
        data = dict(fields.pop("input", {}) or {})
        data.setdefault("session_id", sid)
        if self._turn_key:
            data.setdefault("turnKey", self._turn_key)
        key = f"claude:session:{sid}:line:{uuid}:{suffix}"
        self.reporter.report(
            RunMessage(type=kind, source=SOURCE_CLAUDE, source_key=key, input=data, **fields)
        )

    def _flush(self, as_final: bool) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        final = (as_final or pending.end_turn) and self._turn_commentable
        saved, self._turn_key = self._turn_key, pending.turn_key
        kind: MessageType = "final" if final else "text"
        self._report(kind, pending.session_id, pending.uuid, kind, content=pending.text)
        self._turn_key = saved

    def _line(self, sid: str, record: dict[str, Any]) -> None:
        uuid = str(record.get("uuid") or "")
        kind = record.get("type")
        if kind == "system":
            if record.get("subtype") in ("turn_duration", "stop_hook_summary"):
                self._flush(as_final=True)
            if record.get("subtype") == "turn_duration":
                self.active_ms += int(record.get("durationMs") or 0)
            return
        if kind not in ("user", "assistant") or not uuid or record.get("isSidechain"):
            return
        if uuid in self.seen:
            return
        self.seen.add(uuid)
        message = record.get("message") or {}
        if kind == "user":
            self._user(sid, uuid, record, message)
        else:
            self._assistant(sid, uuid, message)

    def _user(self, sid: str, uuid: str, record: dict[str, Any], message: dict[str, Any]) -> None:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        for block in results:
            tool_id = str(block.get("tool_use_id") or "")
            self._report(
                "tool_result",
                sid,
                uuid,
                f"tool-result:{tool_id}",
                tool=self.tool_names.get(tool_id, "unknown"),
                output=_stringify(block.get("content")),
                input={"tool_use_id": tool_id, "is_error": bool(block.get("is_error"))},
            )
        if results or record.get("isMeta"):
            return
        text = (
            content
            if isinstance(content, str)
            else "\n".join(
                str(b.get("text") or "")
                for b in blocks
                if isinstance(b, dict) and b.get("type") == "text"
            )
        )
        text = text.strip()
        if not text or text.startswith(_LOCAL_OUTPUT):
            return
        self._flush(as_final=False)
        self._turn_key = f"{sid}:{uuid}"
        command = _COMMAND.search(text)
        data: dict[str, Any] = {}
        if command is not None:
            args_match = _ARGS.search(text)
            args = args_match.group(1).strip() if args_match else ""
            if not args:
                self._turn_commentable = False
                return  # a bare slash command is not user input (LR-164, LR-165)
            text = f"/{command.group(1)} {args}"
            data = {"command": True, "slash_command": command.group(1), "slash_args": args}
            data["commentable"] = True
        self._turn_commentable = True
        self._report("user_input", sid, uuid, "user", content=text, input=data)

    def _assistant(self, sid: str, uuid: str, message: dict[str, Any]) -> None:
        self._count_usage(message)
        end_turn = message.get("stop_reason") == "end_turn"
        for index, block in enumerate(message.get("content") or []):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and str(block.get("text") or "").strip():
                self._flush(as_final=False)
                self._pending = _Pending(sid, uuid, str(block["text"]), end_turn, self._turn_key)
            elif kind == "thinking" and str(block.get("thinking") or "").strip():
                self._flush(as_final=False)
                self._report("thinking", sid, uuid, f"thinking:{index}", content=block["thinking"])
            elif kind == "tool_use":
                self._flush(as_final=False)
                tool_id = str(block.get("id") or "")
                name = str(block.get("name") or "unknown")
                self.tool_names[tool_id] = name
                tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
                self._report(
                    "tool_use",
                    sid,
                    uuid,
                    f"tool-use:{tool_id}",
                    tool=name,
                    input={"tool_use_id": tool_id, "input": tool_input},
                )
        if end_turn and self._pending is not None and self._pending.uuid == uuid:
            self._flush(as_final=True)

    def _count_usage(self, message: dict[str, Any]) -> None:
        usage = message.get("usage")
        message_id = str(message.get("id") or "")
        if not isinstance(usage, dict) or not message_id:
            return
        now = (
            int(usage.get("input_tokens") or 0),
            int(usage.get("output_tokens") or 0),
            int(usage.get("cache_read_input_tokens") or 0),
            int(usage.get("cache_creation_input_tokens") or 0),
        )
        before = self._usage_seen.get(message_id, (0, 0, 0, 0))
        delta = tuple(max(0, a - b) for a, b in zip(now, before, strict=True))
        self._usage_seen[message_id] = tuple(max(a, b) for a, b in zip(now, before, strict=True))  # type: ignore[assignment]
        if any(delta):
            self.usage.add(UsageEntry(PROVIDER, str(message.get("model") or ""), *delta))

    def close(self) -> None:
        """Read the last lines and report a text still waiting for its turn's end."""
        self.poll()
        with self._lock:
            self._flush(as_final=False)


def _stringify(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text") or ""))
            else:
                parts.append(json.dumps(block, ensure_ascii=False))
        return "\n".join(parts)
    return "" if content is None else json.dumps(content, ensure_ascii=False)
