"""Gemini CLI chat files as run messages (the reader of :mod:`.gemini`).

Which file: the chat of the session hangar names (``--session-id ID``, or the one you resume
with ``--resume ID``), ``<Gemini home>/tmp/<project>/chats/session-<time>-<ID[:8]>.jsonl``
whose metadata line carries ``sessionId: ID``; never "the newest file" (LR-172, LR-173). A
session resumed at the start of the run is read from the file's end; one the TUI switched to
(:mod:`.gemini`) from its start when it is new (``/clear``), else from the record
``{"$set": {"sessionId": ID}}`` Gemini appends when it resumes a session (``/resume``).

The file is projected with the transcript reader (:class:`hangar.agents.gemini.
GeminiJsonlProjector`: records replaced by id, ``$rewindTo``); each projected block is
reported once per source key:

- user record → ``user_input`` (a bare slash command: nothing, and its turn has no final;
  with arguments: ``command``/``commentable``, LR-164); the user records Gemini writes for
  tool results carry no text and are not input;
- model text → ``text``; the turn's last text becomes ``final`` (when the turn is
  commentable) once the next prompt is written or the CLI has ended: Gemini appends a turn's
  tool calls to the model record that announced them and writes no end-of-turn record, so
  only what follows tells a last reply from one that will call a tool;
- tool calls → ``tool_use`` with Gemini's tool name (``run_shell_command``, …), and
  ``tool_result`` once the call is done, failed or cancelled;
- error record → ``error``; model ``tokens`` → usage (increments).

sourceKeys: ``gemini:session:SID:message:MID:{user|error|tool-use:CALL|tool-result:CALL}`` and
``…:message:MID:block:N:{text|final}`` (MID: the id of the request's first record, N: the
block's place in the reply the transcript reader builds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hangar.agents.gemini import GeminiJsonlProjector
from hangar.localrun.providers.slash import parse_slash
from hangar.model import TextBlock, ToolBlock, Usage
from hangar.model.messages import Message
from hangar.model.run_messages import MessageType, RunMessage, UsageEntry

SOURCE = "gemini-chat"
PROVIDER = "gemini"
_DONE = frozenset({"done", "failed", "cancelled"})


@dataclass
class Mapped:
    messages: list[RunMessage] = field(default_factory=list)
    usage: list[UsageEntry] = field(default_factory=list)


class GeminiChat:
    """One chat file, read from an offset on; reports each source key once."""

    def __init__(
        self, session: str, path: Path, *, from_end: bool, from_resume: bool = False
    ) -> None:
        self.session = session
        self.path = path
        self.offset = path.stat().st_size if from_end and path.exists() else 0
        if from_resume:
            self.offset = _after_last_resume(path)
        self.partial = b""
        self.projector = GeminiJsonlProjector()
        self.sent: set[str] = set()
        self.usage_sent: dict[str, Usage] = {}
        self.pending: tuple[str, str] | None = None
        """The key stem and text of the newest reply text, not yet reported (text or final)."""
        self.commentable = False
        self.turn_key = ""

    def _key(self, stem: str, suffix: str) -> str:
        return f"gemini:session:{self.session}:message:{stem}:{suffix}"

    def _message(self, kind: MessageType, stem: str, suffix: str, **fields: Any) -> RunMessage:
        data = {"session_id": self.session, **fields.pop("input", {})}
        if self.turn_key:
            data["turnKey"] = self.turn_key
        return RunMessage(kind, SOURCE, self._key(stem, suffix), input=data, **fields)

    def read(self, out: Mapped) -> None:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return
        if not data:
            return
        self.offset += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        for line in lines:
            if line.strip():
                self.projector.feed(line)
        for message in self.projector.log.messages:
            self._map(message, out)

    def _emit(self, message: RunMessage, out: Mapped) -> None:
        if message.source_key not in self.sent:
            self.sent.add(message.source_key)
            out.messages.append(message)

    def _map(self, message: Message, out: Mapped) -> None:
        if message.role == "user":
            self._user(message, out)
            return
        for n, block in enumerate(message.blocks or []):
            if isinstance(block, TextBlock) and block.text.strip():
                self._text(f"{message.id}:block:{n}", block.text, out)
            elif isinstance(block, ToolBlock):
                self._tool(message.id, block, out)
        error = self._message("error", message.id, "error", content=message.error or "")
        if message.error and error.source_key not in self.sent:
            self._settle_pending(out)
            self._emit(error, out)
        self._usage(message, out)

    def _text(self, stem: str, text: str, out: Mapped) -> None:
        if self._sent_text(stem):
            return
        self._settle_pending(out, keep=stem)
        self.pending = (stem, text)  # text or final: AfterAgent tells (see the docstring)

    def _tool(self, stem: str, tool: ToolBlock, out: Mapped) -> None:
        call = tool.tool_use_id
        use = self._message(
            "tool_use", stem, f"tool-use:{call}", tool=tool.name,
            input={"tool_call_id": call, "input": tool.input},
        )  # fmt: skip
        if use.source_key not in self.sent:
            self._settle_pending(out)  # the text before a new tool call was not the last reply
            self._emit(use, out)
        if tool.status in _DONE:
            result = self._message(
                "tool_result", stem, f"tool-result:{call}", tool=tool.name,
                output=tool.output or "",
                input={"tool_call_id": call, "success": tool.status == "done"},
            )  # fmt: skip
            self._emit(result, out)

    def _usage(self, message: Message, out: Mapped) -> None:
        usage = message.usage
        if usage is None:
            return
        before = self.usage_sent.get(message.id, Usage())
        self.usage_sent[message.id] = usage
        fresh, made, cached = (
            max(0, now - was)
            for now, was in (
                (usage.input_tokens, before.input_tokens),
                (usage.output_tokens, before.output_tokens),
                (usage.cache_read_tokens, before.cache_read_tokens),
            )
        )
        if fresh or made or cached:
            entry = UsageEntry(PROVIDER, message.model or "", fresh, made, cached)
            out.usage.append(entry)

    def _user(self, message: Message, out: Mapped) -> None:
        key = self._key(message.id, "user")
        text = message.content.strip()
        if key in self.sent or not text:
            return  # seen, or a record of tool results (Gemini writes them as user records)
        self._settle_pending(out, kind="final" if self.commentable else "text")
        self.sent.add(key)
        self.turn_key = f"gemini:session:{self.session}:message:{message.id}"
        slash = parse_slash(text)
        self.commentable = bool(text) and (slash is None or bool(slash.args))
        if not self.commentable:
            return  # a bare slash command is not user input (LR-164)
        extra = {"command": True, "commentable": True} if slash is not None else {}
        out.messages.append(
            self._message("user_input", message.id, "user", content=text, input=extra)
        )

    def _sent_text(self, stem: str) -> bool:
        return self._key(stem, "text") in self.sent or self._key(stem, "final") in self.sent

    def _settle_pending(self, out: Mapped, *, kind: MessageType = "text", keep: str = "") -> None:
        """Something came after the pending text (it was not the turn's last reply), or the
        turn ended (``kind="final"``)."""
        if self.pending is None or self.pending[0] == keep:
            return
        stem, text = self.pending
        self.pending = None
        if not self._sent_text(stem):
            self._emit(self._message(kind, stem, kind, content=text), out)

    def end_turn(self, out: Mapped) -> None:
        """``AfterAgent``: the pending text was the turn's last reply."""
        self._settle_pending(out, kind="final" if self.commentable else "text")


class GeminiSessionFile:
    """The chat file of one named session: found by its id (the file name carries its first
    eight characters, the metadata line all of it), never as "the newest file"."""

    def __init__(
        self, chats_root: Path, session: str, *, from_end: bool, from_resume: bool = False
    ) -> None:
        self.root = chats_root
        self.session = session
        self.from_end = from_end
        self.from_resume = from_resume
        self.chat: GeminiChat | None = None

    @property
    def resumed(self) -> bool:
        """Whether reading starts after a resume record (0: the session is read whole)."""
        return self.chat is not None and self.chat.offset > 0

    def open(self) -> bool:
        """Whether the session's file is there (and now followed)."""
        if self.chat is None:
            path = self._find()
            if path is None:
                return False
            self.chat = GeminiChat(
                self.session, path, from_end=self.from_end, from_resume=self.from_resume
            )
        return True

    def _find(self) -> Path | None:
        for path in sorted(self.root.glob(f"*/chats/session-*-{self.session[:8]}.jsonl")):
            if _metadata_session(path) == self.session:
                return path
        return None

    def read(self, *, ended: bool = False) -> Mapped:
        out = Mapped()
        if not self.open():
            return out
        assert self.chat is not None
        self.chat.read(out)
        if ended:
            self.chat.end_turn(out)
        return out


def _after_last_resume(path: Path) -> int:
    """The offset after the last ``{"$set": {"sessionId": …}}`` record (Gemini appends one
    each time it resumes the session), or 0 for a session that was never resumed."""
    offset = after = 0
    try:
        with path.open("rb") as handle:
            for line in handle:
                offset += len(line)
                if b'"sessionId"' not in line or not line.startswith(b'{"$set"'):
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                change = record.get("$set") if isinstance(record, dict) else None
                if isinstance(change, dict) and "sessionId" in change:
                    after = offset
    except OSError:
        return 0
    return after


def _metadata(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 16)
        record = json.loads(first)
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _metadata_session(path: Path) -> str:
    return str(_metadata(path).get("sessionId") or "")


def started_before(path: Path, moment: float) -> bool:
    """Whether the chat's metadata says its session started before ``moment`` (epoch s)."""
    try:
        start = datetime.fromisoformat(str(_metadata(path).get("startTime")).replace("Z", "+00:00"))
    except ValueError:
        return False
    return start.timestamp() < moment
