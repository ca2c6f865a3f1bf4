"""Cursor agent transcript lines → run messages (LR-150..LR-171).

A Cursor chat transcript (``agent-transcripts/<chatId>/<chatId>.jsonl``) has lines
``{"role": "user"|"assistant", "message": {"content": [blocks]}}`` and a
``{"type": "turn_ended", "status"}`` marker, but no ids or times; the file only grows, so a
line is named by the byte offset it starts at (with the chat id: stable across re-reads).

- user ``text`` (inside ``<user_query>`` when Cursor wrapped it) → ``user_input`` (a bare
  slash command: nothing, and its turn gets no final; with arguments: ``command``/
  ``commentable``); user ``tool_result`` → ``tool_result``, named after the oldest call of
  the reply still unanswered (Cursor's results carry no call id);
- assistant ``text`` → ``text``; the last one before ``turn_ended`` ``success`` is ``final``
  when the turn is commentable (LR-167, LR-170); ``tool_use`` → ``tool_use`` with Cursor's
  tool name; ``thinking`` is not reported (LR-153);
- ``turn_ended`` with another status → ``error``.

sourceKeys: ``chat:ID:line:OFFSET:{user|turn-ended}``,
``chat:ID:line:OFFSET:block:I:{text|final|tool-use|tool-result}``.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from hangar.localrun.providers.base import MessageSink
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage

SOURCE = "cursor-transcript"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(b.get("text") or "") for b in value if isinstance(b, dict))
    return ""


@dataclass
class CursorTranscriptMapper:
    reporter: MessageSink
    chat: str
    _turn: str = ""
    _commentable: bool = False
    _held: tuple[str, str] | None = None  # (key base, text) of the reply's latest text
    _calls: deque[tuple[str, str]] = field(default_factory=deque)  # unanswered (base, tool)

    def feed(self, offset: int, record: dict[str, Any]) -> None:
        line = f"chat:{self.chat}:line:{offset}"
        if record.get("type") == "turn_ended":
            status = str(record.get("status") or "")
            self._flush(as_final=status == "success")
            if status != "success":
                text = str(record.get("error") or f"the turn ended: {status or 'unknown'}")
                self._report("error", f"{line}:turn-ended", content=text)
            return
        role = record.get("role")
        for index, block in enumerate(_blocks(record)):
            base, kind = f"{line}:block:{index}", block.get("type")
            if role == "user" and kind == "text":
                self._user(line, str(block.get("text") or ""))
            elif role == "user" and kind in ("tool_result", "tool-result"):
                call, tool = self._calls.popleft() if self._calls else (base, "unknown")
                output = _text(block.get("content"))
                self._report("tool_result", f"{call}:tool-result", tool=tool, output=output)
            elif role == "assistant" and kind == "text":
                self._flush(as_final=False)
                self._held = (base, str(block.get("text") or ""))
            elif role == "assistant" and kind in ("tool_use", "tool_call"):
                self._flush(as_final=False)
                tool = str(block.get("name") or "unknown")
                self._calls.append((base, tool))
                raw = block.get("input")
                data = {"input": raw if isinstance(raw, dict) else {}}
                self._report("tool_use", f"{base}:tool-use", tool=tool, input=data)

    def _user(self, line: str, raw: str) -> None:
        match = _QUERY.search(raw)
        text = (match.group(1) if match else raw).strip()
        if not text:
            return
        self._flush(as_final=False)  # a turn that ended without its marker
        self._calls.clear()
        self._turn, self._commentable = line, True
        data: dict[str, Any] = {}
        slash = parse_slash(text)
        if slash is not None:
            if not slash.args:
                self._commentable = False
                return  # a bare slash command is not user input (LR-164, LR-165)
            data = {
                "command": True,
                "slash_command": slash.name,
                "slash_args": slash.args,
                "commentable": True,
            }
        self._report("user_input", f"{line}:user", content=text, input=data)

    def _flush(self, as_final: bool) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        kind: MessageType = "final" if as_final and self._commentable else "text"
        self._report(kind, f"{held[0]}:{kind}", content=held[1])

    def _report(self, kind: MessageType, key: str, **fields: Any) -> None:
        data = dict(fields.pop("input", {}) or {})
        data["session_id"] = self.chat
        if self._turn:
            data["turnKey"] = self._turn
        self.reporter.report(RunMessage(kind, SOURCE, key, input=data, **fields))

    def close(self) -> None:
        """The CLI ended: a reply still held is reported as text (its turn never ended)."""
        self._flush(as_final=False)
