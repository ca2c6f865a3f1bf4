"""OpenCode messages and parts (either store) to normalized messages.

Both stores hand over the same raw shape (:class:`RawSession`): the session record, its
messages in order, each with its parts in order, the ``todo`` snapshot and the child
sessions. One user message opens a request; every assistant message that answers it (one
per model step) folds into one normalized assistant message, so a ``todowrite`` checklist
lands on the message of the request that produced it (CL-002, CL-031).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hangar.agents.base import SessionSummary
from hangar.agents.checklist_rules import ChecklistLedger, current_checklist
from hangar.agents.checklists import from_opencode_todos
from hangar.agents.json_fields import JsonObject, as_int, as_map, as_str
from hangar.agents.json_records import SkipCounter
from hangar.agents.message_log import MessageLog, latest_model
from hangar.agents.timestamps import iso_from_millis
from hangar.agents.tool_kinds import tool_kind
from hangar.agents.tool_output import output_text
from hangar.model import (
    Attachment,
    Checklist,
    CompactionBlock,
    FileChange,
    FileChangesBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
    Usage,
)
from hangar.model.messages import UnknownBlock

#: How deep sub-agent sessions are folded into their parent's task calls.
MAX_CHILD_DEPTH = 4


@dataclass
class RawMessage:
    id: str
    info: JsonObject
    parts: list[JsonObject] = field(default_factory=list)


@dataclass
class RawSession:
    id: str
    info: JsonObject
    messages: list[RawMessage] = field(default_factory=list)
    todos: list[JsonObject] | None = None
    todo_updated: int | None = None
    """Epoch ms of the latest ``todo`` row, when the store records it."""
    children: list[RawSession] = field(default_factory=list)
    skipped: SkipCounter = field(default_factory=SkipCounter)


_TOOL_STATUS = {
    "pending": "running",
    "running": "running",
    "completed": "done",
    "success": "done",
    "error": "failed",
}


def _time(info: Mapping[str, Any], key: str) -> int | None:
    times = info.get("time")
    if isinstance(times, Mapping):
        value = times.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return int(value)
    return None


def _model(info: Mapping[str, Any]) -> str | None:
    model = as_str(info.get("modelID"))
    if model is None and isinstance(info.get("model"), Mapping):
        model = as_str(info["model"].get("modelID"))
    return model


def _usage(tokens: object) -> Usage | None:
    if not isinstance(tokens, Mapping):
        return None
    cache = as_map(tokens.get("cache"))
    return Usage(
        input_tokens=as_int(tokens.get("input")),
        output_tokens=as_int(tokens.get("output")),
        reasoning_tokens=as_int(tokens.get("reasoning")),
        cache_read_tokens=as_int(cache.get("read")),
        cache_write_tokens=as_int(cache.get("write")),
    )


class _Projector:
    def __init__(self, session: RawSession, depth: int) -> None:
        self.session = session
        self.depth = depth
        self.log = MessageLog()
        self.skipped = session.skipped
        self.checklists = ChecklistLedger()
        self.committed = False
        self.children = {child.id: child for child in session.children}
        self._unclaimed = [child.id for child in session.children]
        self._owner: dict[str, Message] = {}
        self._edits: dict[str, FileChange] = {}
        """What edit/write calls told of each file, for the ``patch`` part that follows."""

    def run(self) -> list[Message]:
        for raw in self.session.messages:
            role = raw.info.get("role")
            if role == "user":
                self._user(raw)
            elif role == "assistant":
                self._assistant(raw)
            else:
                self.skipped.add(f"message.{role}")
        self._todo_table()
        return self.log.messages

    @property
    def checklist(self) -> Checklist | None:
        """The current checklist: the latest turn's own (CL-011, CL-032, CL-064)."""
        messages = self.log.messages
        return self.checklists.current(messages[-1].turn_id if messages else None)

    # -- user ----------------------------------------------------------------------------
    def _user(self, raw: RawMessage) -> None:
        previous = self.log.current
        if previous is not None and previous.status == "streaming":
            # A later request means the earlier reply ended, recorded or not.
            previous.status = "done"
        texts: list[str] = []
        attachments: list[Attachment] = []
        compaction = False
        for part in raw.parts:
            kind = part.get("type")
            if kind == "text":
                # Synthetic text parts are context OpenCode injected, not what the user typed.
                if not part.get("synthetic") and isinstance(part.get("text"), str):
                    texts.append(part["text"])
            elif kind == "file":
                attachments.append(_attachment(part))
            elif kind == "compaction":
                compaction = True
            elif kind in ("agent", "subtask", "step-start", "snapshot"):
                continue
            else:
                self.skipped.add(f"part.{kind}")
        created = iso_from_millis(_time(raw.info, "created"))
        message = self.log.user(raw.id, "\n".join(texts), created, attachments=attachments or None)
        if compaction and not texts:
            message.content = "/compact"

    # -- assistant -----------------------------------------------------------------------
    def _assistant(self, raw: RawMessage) -> None:
        info = raw.info
        message = self.log.assistant(raw.id, iso_from_millis(_time(info, "created")))
        self._owner[raw.id] = message
        message.model = _model(info) or message.model
        completed = _time(info, "completed")
        message.completed_at = iso_from_millis(completed) or message.completed_at
        saw_step_usage = False
        for part in raw.parts:
            saw_step_usage |= self._part(message, part)
        if not saw_step_usage:
            usage = _usage(info.get("tokens"))
            if usage is not None:
                self.log.add_usage(message, usage)
        error = info.get("error")
        if isinstance(error, Mapping):
            name = as_str(error.get("name")) or "error"
            data = error.get("data")
            text = as_str(data.get("message")) if isinstance(data, Mapping) else None
            message.error = text or name
            message.status = "cancelled" if name == "MessageAbortedError" else "failed"
        elif completed is None and "time" in info:
            message.status = "streaming"
        elif message.status == "streaming":
            message.status = "done"

    def _part(self, message: Message, part: JsonObject) -> bool:
        """Add one part's blocks; true when it carried step usage."""
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            if isinstance(text, str) and text:
                self.log.add_block(message, TextBlock(text))
        elif kind == "reasoning":
            text = part.get("text")
            if isinstance(text, str) and text:
                self.log.add_block(message, ThinkingBlock(text))
        elif kind == "tool":
            self._tool(message, part)
        elif kind == "step-finish":
            usage = _usage(part.get("tokens"))
            if usage is not None:
                self.log.add_usage(message, usage)
                return True
        elif kind == "patch":
            files = part.get("files")
            if isinstance(files, list):
                changes = [
                    self._edits.pop(f) if f in self._edits else FileChange(path=f)
                    for f in files
                    if isinstance(f, str)
                ]
                self.log.add_block(message, FileChangesBlock(changes))
        elif kind == "file":
            self._file(message, part)
        elif kind == "compaction":
            self.log.add_block(message, CompactionBlock(automatic=bool(part.get("auto", True))))
        elif kind == "subtask":
            block = ToolBlock(
                tool_use_id=as_str(part.get("id")) or "",
                name="subtask",
                input={k: part.get(k) for k in ("agent", "description", "prompt")},
                kind="subagent",
            )
            self.log.add_block(message, block)
        elif kind == "retry":
            self.log.add_block(message, UnknownBlock("opencode.retry", part))
        elif kind in ("step-start", "snapshot", "agent"):
            pass
        else:
            self.skipped.add(f"part.{kind}")
            self.log.add_block(message, UnknownBlock(f"opencode.{kind}", part))
        return False

    def _tool(self, message: Message, part: JsonObject) -> None:
        state = as_map(part.get("state"))
        name = as_str(part.get("tool")) or "tool"
        status_raw = as_str(state.get("status")) or "pending"
        status = _TOOL_STATUS.get(status_raw, "running")
        error = as_str(state.get("error"))
        start, end = _time(state, "start"), _time(state, "end")
        block = ToolBlock(
            tool_use_id=as_str(part.get("callID")) or as_str(part.get("id")) or "",
            name=name,
            input=state.get("input"),
            output=output_text(state.get("output")) if error is None else error,
            status=status,  # type: ignore[arg-type]
            is_error=status == "failed",
            duration_ms=end - start if start is not None and end is not None else None,
            kind=tool_kind(name),
        )
        if status == "failed" and error and "abort" in error.lower():
            block.status = "cancelled"
        if name == "task":
            block.children = self._child_messages(state)
        if status == "done":
            self._note_edit(name, state)
        self.log.add_block(message, block)
        if name == "todowrite" and status_raw in ("running", "completed", "success"):
            # The raw tool input, never a display string: a long list survives whole (CL-009).
            checklist = from_opencode_todos(state.get("input"), "opencode.todowrite")
            self._commit(message, checklist, block.tool_use_id or None)

    def _note_edit(self, name: str, state: Mapping[str, Any]) -> None:
        """Line counts and the diff of an ``edit``/``write`` call (its ``metadata``)."""
        metadata = as_map(state.get("metadata"))
        filediff = as_map(metadata.get("filediff"))
        path = as_str(filediff.get("file")) or as_str(metadata.get("filepath"))
        if path is None:
            return
        created = name == "write" and metadata.get("exists") is False
        self._edits[path] = FileChange(
            path=path,
            change_type="add" if created else "update",
            additions=as_int(filediff.get("additions")),
            deletions=as_int(filediff.get("deletions")),
            diff=as_str(filediff.get("patch")) or as_str(metadata.get("diff")),
        )

    def _child_messages(self, state: Mapping[str, Any]) -> list[Message] | None:
        metadata = state.get("metadata")
        child_id = as_str(metadata.get("sessionId")) if isinstance(metadata, Mapping) else None
        if child_id is None or child_id not in self._unclaimed:
            # Older versions record no id: children are claimed in the order they started.
            child_id = self._unclaimed[0] if self._unclaimed else None
        if child_id is None or self.depth >= MAX_CHILD_DEPTH:
            return None
        self._unclaimed.remove(child_id)
        child = self.children[child_id]
        # A child's checklist stays inside the child (CL-036, CL-064).
        return _Projector(child, self.depth + 1).run()

    def _file(self, message: Message, part: JsonObject) -> None:
        mime = as_str(part.get("mime"))
        url = as_str(part.get("url")) or ""
        if mime and mime.startswith("image/"):
            if url.startswith("data:"):
                block = ImageBlock(render_payload=url, mime_type=mime)
            else:
                block = ImageBlock(path=url.removeprefix("file://") or None, mime_type=mime)
            self.log.add_block(message, block)
            return
        attachments = list(message.attachments or [])
        attachments.append(_attachment(part))
        message.attachments = attachments
        self.log.touch(message)

    def _commit(
        self, message: Message, checklist: Checklist | None, key: str | None, native: bool = False
    ) -> None:
        block = self.checklists.offer(message.turn_id, checklist, key=key, native=native)
        if block is not None:
            self.log.add_block(message, block)
            self.committed = True

    def _todo_table(self) -> None:
        """Use the stored snapshot only when no ``todowrite`` input was readable.

        The snapshot has no request id; it is tied to the assistant message whose time
        window holds its last update (CL-010, CL-011), else it is not used at all.
        """
        if self.committed or not self.session.todos:
            return
        checklist = from_opencode_todos(self.session.todos, "opencode.todo")
        when = self.session.todo_updated
        if when is None:
            return
        owner: Message | None = None
        for raw in self.session.messages:
            created = _time(raw.info, "created")
            if raw.id in self._owner and created is not None and created <= when:
                owner = self._owner[raw.id]
        if owner is not None:
            # A snapshot no request owns is never shown as any turn's list (CL-011).
            self._commit(owner, checklist, None, native=True)


def _attachment(part: Mapping[str, Any]) -> Attachment:
    url = as_str(part.get("url")) or ""
    path = url.removeprefix("file://") if url.startswith("file://") else None
    return Attachment(
        name=as_str(part.get("filename")) or path or "file",
        path=path,
        mime_type=as_str(part.get("mime")),
    )


def project_session(session: RawSession) -> tuple[list[Message], SessionSummary]:
    """The normalized transcript of one session and its summary."""
    projector = _Projector(session, 0)
    messages = projector.run()
    info = session.info
    last_model = latest_model(messages)
    status = "done"
    if messages and messages[-1].role == "assistant":
        status = {"streaming": "running"}.get(messages[-1].status, messages[-1].status)
    summary = SessionSummary(
        title=as_str(info.get("title")),
        workspace_path=as_str(info.get("directory")),
        created_at=iso_from_millis(_time(info, "created")),
        updated_at=iso_from_millis(_time(info, "updated")),
        model=last_model,
        status=status,
        message_count=len(messages),
        # The transcript's current list is the latest turn's own (CL-011, CL-064).
        checklist=current_checklist(messages),
        skipped=dict(session.skipped.counts),
    )
    return messages, summary
