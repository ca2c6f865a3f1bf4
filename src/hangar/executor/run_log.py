"""A task's normalized transcript as local-run messages (``runtime.tasks.run_messages``).

Any agent with a store facet can be adopted into an issue: this maps the normalized messages
(:mod:`hangar.model.messages`), not an agent's own records, with the same semantics as the
live providers (docs/local-runs.md):

- a user message → ``user_input`` (a bare slash command is not input, LR-164; ``/cmd args``
  is, marked ``command`` and ``commentable``);
- an assistant message's blocks, in order: each tool call → ``tool_use`` with the agent's
  tool name, and ``tool_result`` once the call is no longer running (LR-154, LR-155); its
  committed checklist (the :class:`~hangar.model.ChecklistBlock` the store's ledger placed
  after the call) rides on the ``tool_use`` as ``input.checklist``; each text → ``text``,
  except the reply's last text once the message is settled (not ``streaming``): ``final``
  when its turn has commentable input (LR-167, LR-170), else ``text``; a failed message's
  error → ``error``. Thinking is not written (LR-153: the mapper cannot know whether the
  agent's own backend writes it); nor are sub-agents' messages (``children``: a child session
  never reaches the run, CL-036), plans, file-change summaries, images or raw records.

Source keys come from the agent's own ids (LR-160): ``<runtime>:<sessionId>:<messageId>:``
then ``user``, ``tool:<callId>:use|result``, ``checklist:<n>``, ``error``, and for texts
``text|final:<digest>:<n>`` (the digest of the text, ``n`` its occurrence in the message).
Texts have no ids, and a streaming turn may re-order equal records while they settle, so
their key names their content rather than a position. The source is ``<runtime>-transcript``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hangar.agents.checklists import checklist_to_json
from hangar.model import (
    Checklist,
    ChecklistBlock,
    Message,
    PlanBlock,
    TextBlock,
    ToolBlock,
)
from hangar.model.run_messages import MAX_SOURCE_KEY_CHARS, MessageType, RunMessage

_BARE_COMMAND = re.compile(r"^/[A-Za-z][\w:.-]*$")
_COMMAND = re.compile(r"^/([A-Za-z][\w:.-]*)\s+(\S.*)$", re.S)


def source_of(runtime: str) -> str:
    return f"{runtime}-transcript"


@dataclass(frozen=True)
class RunLogPage:
    messages: list[RunMessage]
    next_index: int
    has_more: bool


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


class _Turn:
    """The run messages of one turn (one user request and its reply)."""

    def __init__(self, runtime: str, session_id: str, turn_id: str) -> None:
        self.runtime = runtime
        self.session = session_id
        self.turn_key = f"{runtime}:{session_id}:{turn_id}"
        self.out: list[RunMessage] = []
        self.commentable = False

    def _key(self, message: Message, suffix: str) -> str:
        key = f"{self.runtime}:{self.session}:{message.id}:{suffix}"
        if len(key) <= MAX_SOURCE_KEY_CHARS:
            return key
        # Agent ids this long are hashed: still the same key for the same message.
        return f"{self.runtime}:{_digest(f'{self.session}:{message.id}')}:{suffix}"

    def emit(self, kind: MessageType, message: Message, suffix: str, **fields: Any) -> None:
        data = {**(fields.pop("input", None) or {}), "turnKey": self.turn_key}
        self.out.append(
            RunMessage(
                type=kind,
                source=source_of(self.runtime),
                source_key=self._key(message, suffix),
                input=data,
                **fields,
            ).prepared()
        )

    def user(self, message: Message) -> None:
        text = message.content.strip()
        if not text or _BARE_COMMAND.match(text):
            return  # a bare slash command is not user input (LR-164, LR-165)
        data: dict[str, Any] = {}
        command = _COMMAND.match(text)
        if command is not None and "/" not in command.group(1):
            data = {"command": True, "slash_command": command.group(1), "commentable": True}
            data["slash_args"] = command.group(2).strip()
        self.commentable = True
        self.emit("user_input", message, "user", content=text, input=data)

    def assistant(self, message: Message) -> None:
        blocks = list(message.blocks or [])
        settled = message.status != "streaming"
        last_text = max((i for i, b in enumerate(blocks) if isinstance(b, TextBlock)), default=-1)
        seen: dict[str, int] = {}
        standalone = 0
        for position, block in enumerate(blocks):
            if isinstance(block, TextBlock):
                if not block.text.strip():
                    continue
                digest = _digest(block.text)
                count = seen.get(digest, 0)
                seen[digest] = count + 1
                if position == last_text:
                    if not settled:
                        continue  # it may become the final reply: wait for the turn to settle
                    if self.commentable:
                        suffix = f"final:{digest}:{count}"
                        self.emit("final", message, suffix, content=block.text)
                        continue
                self.emit("text", message, f"text:{digest}:{count}", content=block.text)
            elif isinstance(block, ToolBlock):
                following = blocks[position + 1] if position + 1 < len(blocks) else None
                checklist = following if isinstance(following, ChecklistBlock) else None
                self._tool(message, block, checklist)
            elif isinstance(block, ChecklistBlock):
                previous = blocks[position - 1] if position else None
                if isinstance(previous, ToolBlock):
                    continue  # it rode on that call's tool_use
                standalone += 1
                self.emit(
                    "tool_use",
                    message,
                    f"checklist:{standalone}",
                    tool=block.source,
                    input={"checklist": _checklist(block)},
                )
            elif isinstance(block, PlanBlock) and block.text.strip():
                suffix = f"plan:{_digest(block.text)}"
                self.emit("text", message, suffix, content=block.text, input={"kind": "plan"})
        if settled and message.status == "failed" and message.error:
            self.emit("error", message, "error", content=message.error)

    def _tool(self, message: Message, block: ToolBlock, checklist: ChecklistBlock | None) -> None:
        call = block.tool_use_id
        tool_input = block.input if isinstance(block.input, dict) else {"value": block.input}
        data: dict[str, Any] = {"tool_use_id": call, "input": tool_input}
        if checklist is not None:
            data["checklist"] = _checklist(checklist)
        self.emit("tool_use", message, f"tool:{call}:use", tool=block.name, input=data)
        if block.status == "running":
            return
        result = {"tool_use_id": call, "is_error": block.is_error, "status": block.status}
        self.emit(
            "tool_result",
            message,
            f"tool:{call}:result",
            tool=block.name,
            output=block.output or "",
            input=result,
        )


def _checklist(block: ChecklistBlock) -> dict[str, Any]:
    return checklist_to_json(Checklist(block.source, tuple(block.items)))


def _turns(messages: Sequence[Message]) -> list[list[Message]]:
    turns: list[list[Message]] = []
    for message in messages:
        if turns and turns[-1][-1].turn_id == message.turn_id:
            turns[-1].append(message)
        else:
            turns.append([message])
    return turns


def run_log(
    runtime: str,
    session_id: str,
    messages: Sequence[Message],
    *,
    from_index: int = 0,
    limit: int = 500,
) -> RunLogPage:
    """The run messages of ``messages`` from transcript index ``from_index`` on, a page of
    whole turns of about ``limit`` messages (see the module docstring)."""
    out: list[RunMessage] = []
    turns = [t for t in _turns(messages) if t[-1].index >= from_index]
    next_index = from_index
    for number, turn in enumerate(turns):
        if out and len(out) >= limit:
            return RunLogPage(out, turn[0].index, has_more=True)
        mapped = _Turn(runtime, session_id, turn[0].turn_id)
        for message in turn:
            # Messages before ``from_index`` still tell whether the turn is commentable.
            if message.role == "user":
                mapped.user(message)
                if message.index < from_index:
                    mapped.out.clear()
            elif message.index >= from_index:
                mapped.assistant(message)
        out.extend(mapped.out)
        if number == len(turns) - 1:
            next_index = turn[0].index
    return RunLogPage(out, next_index, has_more=False)
