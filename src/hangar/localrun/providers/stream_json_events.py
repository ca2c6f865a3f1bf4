"""Claude-style ``stream-json`` events → run messages (Qwen Code's ``--json-file`` output).

Each event is one JSON object with ``type`` (``system``, ``user``, ``assistant``,
``stream_event``, ``result``), its own ``uuid`` and the ``session_id`` it belongs to; a
session switch (``/clear``, a resume) shows as a new ``session_id`` on the events that
follow, in the same stream.

Mapping (LR-150..LR-171):

- ``user`` text → ``user_input`` (a bare slash command: nothing, and its turn gets no final;
  with arguments: ``/cmd args`` marked ``command``/``commentable``); ``tool_result`` blocks →
  ``tool_result`` named through ``tool_use_id``, never user input (LR-166);
- ``assistant`` ``text`` → ``text``; the text of an assistant message that calls no tool
  ends the turn: ``final`` when the turn has commentable input (LR-167, LR-170); ``tool_use``
  → ``tool_use`` with the agent's own tool name; ``thinking`` is not reported (LR-153);
- ``result`` with ``is_error`` and a ``system`` ``api_error`` → ``error``;
- ``stream_event`` deltas are never reported (LR-171); usage per model from each assistant
  message's ``usage`` (once per message id).

sourceKeys: ``session:SID:event:UUID:{user|text|final|tool-use:ID|tool-result:ID|error}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hangar.localrun.providers.base import MessageSink, UsageSink
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage, UsageEntry


def stringify(content: Any) -> str:
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


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass
class _Pending:
    sid: str
    uuid: str
    text: str
    turn_key: str


@dataclass
class StreamJsonMapper:
    reporter: MessageSink
    usage: UsageSink
    source: str
    provider: str
    sessions: list[str] = field(default_factory=list)
    tool_names: dict[str, str] = field(default_factory=dict)
    _seen: set[str] = field(default_factory=set)
    _usage_seen: set[str] = field(default_factory=set)
    _turn_key: str = ""
    _commentable: bool = False
    _pending: _Pending | None = None

    def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        sid = str(event.get("session_id") or "")
        uuid = str(event.get("uuid") or "")
        if not sid or not uuid or kind == "stream_event" or event.get("parent_tool_use_id"):
            return  # deltas, sub-agent events and records without ids are not log entries
        if uuid in self._seen:
            return
        self._seen.add(uuid)
        if sid not in self.sessions:
            self.sessions.append(sid)
        message = _object(event.get("message"))
        if kind == "user":
            self._user(sid, uuid, message)
        elif kind == "assistant":
            self._assistant(sid, uuid, message)
        elif kind == "result":
            self._flush(as_final=True)
            if event.get("is_error"):
                text = str(event.get("result") or event.get("error") or "the turn failed")
                self._report("error", sid, uuid, "error", content=text)
        elif kind == "system" and event.get("subtype") in ("api_error", "error"):
            data = _object(event.get("data"))
            text = str(data.get("message") or data.get("error") or event.get("error") or "")
            self._report("error", sid, uuid, "error", content=text or "API error")

    # -- mapping --------------------------------------------------------------------------
    def _report(self, kind: MessageType, sid: str, uuid: str, suffix: str, **fields: Any) -> None:
        data = dict(fields.pop("input", {}) or {})
        data.setdefault("session_id", sid)
        if self._turn_key:
            data.setdefault("turnKey", self._turn_key)
        key = f"session:{sid}:event:{uuid}:{suffix}"
        self.reporter.report(RunMessage(kind, self.source, key, input=data, **fields))

    def _flush(self, as_final: bool) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        kind: MessageType = "final" if as_final and self._commentable else "text"
        saved, self._turn_key = self._turn_key, pending.turn_key
        self._report(kind, pending.sid, pending.uuid, kind, content=pending.text)
        self._turn_key = saved

    def _user(self, sid: str, uuid: str, message: dict[str, Any]) -> None:
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
                output=stringify(block.get("content")),
                input={"tool_use_id": tool_id, "is_error": bool(block.get("is_error"))},
            )
        if results:
            return
        text = (content if isinstance(content, str) else stringify(
            [b for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        )).strip()  # fmt: skip
        if not text:
            return
        self._flush(as_final=False)
        self._turn_key = f"{sid}:{uuid}"
        slash = parse_slash(text)
        data: dict[str, Any] = {}
        if slash is not None:
            if not slash.args:
                self._commentable = False
                return  # a bare slash command is not user input (LR-164, LR-165)
            data = {"command": True, "slash_command": slash.name, "slash_args": slash.args}
            data["commentable"] = True
        self._commentable = True
        self._report("user_input", sid, uuid, "user", content=text, input=data)

    def _assistant(self, sid: str, uuid: str, message: dict[str, Any]) -> None:
        self._count_usage(message)
        calls_tool = False
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and str(block.get("text") or "").strip():
                self._flush(as_final=False)
                self._pending = _Pending(sid, uuid, str(block["text"]), self._turn_key)
            elif kind == "tool_use":
                calls_tool = True
                self._flush(as_final=False)
                tool_id = str(block.get("id") or "")
                name = str(block.get("name") or "unknown")
                self.tool_names[tool_id] = name
                raw = block.get("input")
                self._report(
                    "tool_use",
                    sid,
                    uuid,
                    f"tool-use:{tool_id}",
                    tool=name,
                    input={"tool_use_id": tool_id, "input": raw if isinstance(raw, dict) else {}},
                )
        if not calls_tool:
            self._flush(as_final=True)  # a reply that calls no tool ends the turn

    def _count_usage(self, message: dict[str, Any]) -> None:
        usage = message.get("usage")
        message_id = str(message.get("id") or "")
        if not isinstance(usage, dict) or not message_id or message_id in self._usage_seen:
            return
        self._usage_seen.add(message_id)
        cached = int(usage.get("cache_read_input_tokens") or 0)
        self.usage.add(
            UsageEntry(
                self.provider,
                str(message.get("model") or ""),
                input_tokens=max(0, int(usage.get("input_tokens") or 0) - cached),
                output_tokens=int(usage.get("output_tokens") or 0),
                cache_read_tokens=cached,
                cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
            )
        )

    def close(self) -> None:
        """The CLI ended: a text still waiting is reported as plain text."""
        self._flush(as_final=False)
