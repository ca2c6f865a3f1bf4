"""A chat file projected by an agent's transcript reader, as run messages (Gemini CLI, Qwen Code).

Gemini CLI and its fork Qwen Code append one record per line to the chat of a session and
write no end-of-turn record. :class:`ChatLog` feeds what the file gained to the agent's own
transcript projector (:mod:`hangar.agents`) and reports each projected block once per source
key:

- a user message → ``user_input`` (a bare slash command: nothing, and its turn has no final;
  with arguments: ``command``/``commentable``, LR-164); user messages without text (tool
  results, as Gemini writes them) are not input;
- reply text → ``text``; the turn's last text becomes ``final`` (when the turn is commentable)
  once the next prompt is written or the turn is known to be over (:meth:`ChatLog.end_turn`):
  a turn's tool calls may follow the text that announced them, so only what follows tells a
  last reply from one that will call a tool;
- tool calls → ``tool_use`` with the agent's tool name, and ``tool_result`` once the call is
  done, failed or cancelled;
- a message's error → ``error``; its ``usage`` → usage (increments).

sourceKeys: ``PREFIX:session:SID:message:MID:{user|error|tool-use:CALL|tool-result:CALL}`` and
``…:message:MID:block:N:{text|final}`` (MID: the id of the request's first record, N: the
block's place in the reply the transcript reader builds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from hangar.agents.message_log import MessageLog
from hangar.localrun.providers.jsonl_tail import appended
from hangar.localrun.providers.slash import parse_slash, recorded_command
from hangar.model import TextBlock, ToolBlock, Usage
from hangar.model.messages import Message
from hangar.model.run_messages import MessageType, RunMessage, UsageEntry

_DONE = frozenset({"done", "failed", "cancelled"})


@dataclass
class Mapped:
    messages: list[RunMessage] = field(default_factory=list)
    usage: list[UsageEntry] = field(default_factory=list)


class LineProjector(Protocol):
    """An agent's transcript projector: fed whole lines, its log holds the messages."""

    log: MessageLog

    def feed(self, line: bytes) -> None: ...


class ChatLog:
    """One chat file, read from an offset on; reports each source key once."""

    prefix: ClassVar[str]
    """The first part of the source keys (the agent)."""
    source: ClassVar[str]
    provider: ClassVar[str]

    def __init__(
        self, session: str, path: Path, projector: LineProjector, *, from_end: bool
    ) -> None:
        self.session = session
        self.path = path
        self.offset = path.stat().st_size if from_end and path.exists() else 0
        self.partial = b""
        self.projector = projector
        self.sent: set[str] = set()
        self.usage_sent: dict[str, Usage] = {}
        self.pending: tuple[str, str] | None = None
        """The key stem and text of the newest reply text, not yet reported (text or final)."""
        self.commentable = False
        self.turn_key = ""

    def _key(self, stem: str, suffix: str) -> str:
        return f"{self.prefix}:session:{self.session}:message:{stem}:{suffix}"

    def _message(self, kind: MessageType, stem: str, suffix: str, **fields: Any) -> RunMessage:
        data = {"session_id": self.session, **fields.pop("input", {})}
        if self.turn_key:
            data["turnKey"] = self.turn_key
        return RunMessage(kind, self.source, self._key(stem, suffix), input=data, **fields)

    def read(self, out: Mapped) -> None:
        data = appended(self.path, self.offset)
        if not data:
            return
        self.offset += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        for line in lines:
            if line.strip():
                self.line(line, out)
        self.map_projected(out)

    def line(self, line: bytes, out: Mapped) -> None:
        """One whole line of the file (an agent with records its projector skips maps them
        here, after :meth:`map_projected` has reported what came before)."""
        self.projector.feed(line)

    def map_projected(self, out: Mapped) -> None:
        for message in self.projector.log.messages:
            self._map(message, out)

    def _emit(self, message: RunMessage, out: Mapped) -> None:
        if message.source_key not in self.sent:
            self.sent.add(message.source_key)
            out.messages.append(message)

    def _map(self, message: Message, out: Mapped) -> None:
        if message.role == "user":
            if message.content.strip():  # else tool results (Gemini writes them as user records)
                self.prompt(message.id, message.content.strip(), out)
            return
        for n, block in enumerate(message.blocks or []):
            if isinstance(block, TextBlock) and block.text.strip():
                self._text(f"{message.id}:block:{n}", block.text, out)
            elif isinstance(block, ToolBlock):
                self._tool(message.id, block, out)
        if message.error:
            self.error(message.id, message.error, out)
        self._usage(message, out)

    def _text(self, stem: str, text: str, out: Mapped) -> None:
        if self._sent_text(stem):
            return
        self._settle_pending(out, keep=stem)
        self.pending = (stem, text)  # text or final: what follows tells (see the docstring)

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

    def error(self, stem: str, text: str, out: Mapped) -> None:
        """A failed request of the current turn (reported once per ``stem``)."""
        error = self._message("error", stem, "error", content=text)
        if error.source_key not in self.sent:
            self._settle_pending(out)
            self._emit(error, out)

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
            entry = UsageEntry(self.provider, message.model or "", fresh, made, cached)
            out.usage.append(entry)

    def prompt(self, stem: str, text: str, out: Mapped, *, command: bool = False) -> None:
        """What the user typed opens a turn (once per ``stem``): a prompt, or a slash command
        (``command``: the CLI recorded it as one, else told by :func:`parse_slash`)."""
        key = self._key(stem, "user")
        if key in self.sent:
            return
        self.end_turn(out)
        self.sent.add(key)
        self.turn_key = f"{self.prefix}:session:{self.session}:message:{stem}"
        slash = recorded_command(text) if command else parse_slash(text)
        self.commentable = bool(text) and (slash is None or bool(slash.args))
        if not self.commentable:
            return  # a bare slash command is not user input (LR-164)
        extra = {"command": True, "commentable": True} if slash is not None else {}
        out.messages.append(self._message("user_input", stem, "user", content=text, input=extra))

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
        """The turn is over (a new prompt, the CLI's end, another session): the pending text
        was its last reply."""
        self._settle_pending(out, kind="final" if self.commentable else "text")
