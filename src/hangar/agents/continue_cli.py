"""Continue CLI (``cn``): ``sessions/<id>.json`` plus the ``sessions.json`` index.

Each session file is rewritten whole on every update, so the store is signature-based
(``append_only = False``). Checklists come only from the exact ``Checklist`` tool
(CL-003, CL-021) and are committed only when that call's state is ``done`` (CL-015,
CL-017, CL-063), once per call id; a state without arguments uses the arguments the
assistant recorded for the same call (CL-016). The raw ``function.arguments`` string is
parsed, never a display form, so a long list survives whole (CL-013, CL-014, CL-019).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hangar.agents.base import AgentStore, LoadedSession, SessionSource, SessionSummary
from hangar.agents.checklist_rules import ChecklistLedger, current_checklist
from hangar.agents.checklists import from_continue_checklist
from hangar.agents.homes import AgentHome
from hangar.agents.json_fields import JsonObject, as_int, as_map, as_str, decoded_arguments
from hangar.agents.json_records import SkipCounter
from hangar.agents.message_log import MessageLog, latest_model
from hangar.agents.peek import head_bytes
from hangar.agents.text import content_text, title_from
from hangar.agents.timestamps import iso_from_seconds, iso_mtime
from hangar.agents.tool_kinds import tool_kind
from hangar.model import (
    Checklist,
    CompactionBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
    Usage,
)
from hangar.regular_files import read_regular_bytes

RUNTIME = "continue"
CHECKLIST_TOOL = "Checklist"
MAX_FILE_BYTES = 256 * 1024 * 1024

_STATUS = {
    "generating": "running",
    "generated": "running",
    "calling": "running",
    "done": "done",
    "errored": "failed",
    "canceled": "cancelled",
    "cancelled": "cancelled",
}


def _iso(value: object) -> str | None:
    """``sessions.json`` ``dateCreated``: epoch milliseconds (a number or a digit string,
    as 1.5.47 writes it) or an ISO string."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return iso_from_seconds(value / 1000)
    return None


_FIRST_REQUEST = re.compile(rb'"role"\s*:\s*"user"\s*,\s*"content"\s*:\s*("(?:[^"\\]|\\.)*")')
HEAD_BYTES = 16384


def _first_request(path: Path) -> str | None:
    """The first user request from the file's head (cn writes it near the top), so a
    session cn left as "Untitled Session" still lists with a name."""
    head = head_bytes(path, HEAD_BYTES)
    if head is None:
        return None
    match = _FIRST_REQUEST.search(head)
    if match is None:
        return None
    try:
        text = json.loads(match.group(1))
    except ValueError:
        return None
    return title_from(text) if isinstance(text, str) else None


def _title(value: object) -> str | None:
    """cn's placeholder title (headless sessions keep it) is no title."""
    title = as_str(value)
    return None if title in (None, "", "Untitled Session") else title


def _output(state: Mapping[str, Any]) -> str | None:
    output = state.get("output")
    if isinstance(output, list):
        texts = [
            item["content"]
            for item in output
            if isinstance(item, Mapping) and isinstance(item.get("content"), str)
        ]
        return "\n".join(texts)
    return output if isinstance(output, str) else None


class _Session:
    """One session file's ``history`` as normalized messages."""

    def __init__(self) -> None:
        self.log = MessageLog()
        self.skipped = SkipCounter()
        self.checklists = ChecklistLedger()

    @property
    def checklist(self) -> Checklist | None:
        """The current checklist: the latest turn's own (CL-011, CL-032, CL-064)."""
        messages = self.log.messages
        return self.checklists.current(messages[-1].turn_id if messages else None)

    def read(self, history: object) -> None:
        if not isinstance(history, list):
            self.skipped.add("invalid_history")
            return
        for n, item in enumerate(history):
            if not isinstance(item, Mapping) or not isinstance(item.get("message"), Mapping):
                self.skipped.add("invalid_item")
                continue
            self._item(n, item, item["message"])

    def _item(self, n: int, item: Mapping[str, Any], message: Mapping[str, Any]) -> None:
        role = message.get("role")
        msg_id = as_str(message.get("id")) or f"item-{n}"
        if role == "user":
            self.log.user(msg_id, content_text(message.get("content")))
        elif role in ("assistant", "thinking"):
            self._assistant(msg_id, item, message)
        elif role == "tool":
            block = self.log.tool(as_str(message.get("toolCallId")) or "")
            if block is not None and block.output is None:
                block.output = content_text(message.get("content"))
        else:
            self.skipped.add(f"role.{role}")

    def _assistant(self, msg_id: str, item: Mapping[str, Any], message: Mapping[str, Any]) -> None:
        target = self.log.assistant(msg_id)
        reasoning = item.get("reasoning")
        if isinstance(reasoning, Mapping) and isinstance(reasoning.get("text"), str):
            self.log.add_block(target, ThinkingBlock(reasoning["text"]))
        text = content_text(message.get("content"))
        if text:
            block = ThinkingBlock(text) if message.get("role") == "thinking" else TextBlock(text)
            self.log.add_block(target, block)
        usage = message.get("usage")
        if isinstance(usage, Mapping):
            self.log.add_usage(
                target,
                Usage(
                    input_tokens=as_int(usage.get("prompt_tokens")),
                    output_tokens=as_int(usage.get("completion_tokens")),
                ),
            )
            target.model = as_str(usage.get("model")) or target.model
        states: dict[str, Mapping[str, Any]] = {}
        for state in item.get("toolCallStates") or []:
            if isinstance(state, Mapping) and isinstance(state.get("toolCallId"), str):
                states[state["toolCallId"]] = state
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, Mapping):
                self._tool(target, call, states.pop(as_str(call.get("id")) or "", None))
        for state in states.values():
            call = state.get("toolCall")
            self._tool(target, as_map(call), state)
        summary = item.get("conversationSummary")
        if isinstance(summary, str) and summary:
            self.log.add_block(target, CompactionBlock(summary))

    def _tool(
        self, target: Message, call: Mapping[str, Any], state: Mapping[str, Any] | None
    ) -> None:
        function = as_map(call.get("function"))
        name = as_str(function.get("name")) or "tool"
        call_id = as_str(call.get("id")) or (as_str(state.get("toolCallId")) if state else "")
        status_raw = as_str(state.get("status")) if state else None
        status = _STATUS.get(status_raw or "", "running" if state is None else "done")
        raw_args = function.get("arguments")
        if state is not None:
            state_call = state.get("toolCall")
            state_fn = state_call.get("function") if isinstance(state_call, Mapping) else None
            if isinstance(state_fn, Mapping) and state_fn.get("arguments"):
                raw_args = state_fn["arguments"]
        parsed = state.get("parsedArgs") if state else None
        block = ToolBlock(
            tool_use_id=call_id or "",
            name=name,
            input=parsed if parsed is not None else decoded_arguments(raw_args),
            output=_output(state) if state else None,
            status=status,  # type: ignore[arg-type]
            is_error=status == "failed",
            kind=tool_kind(name),
        )
        self.log.add_block(target, block)
        if name == CHECKLIST_TOOL and status_raw == "done":
            # The raw argument string; when the state frame lost it, the call's own copy.
            source = raw_args if raw_args else function.get("arguments")
            checklist = self.checklists.offer(
                target.turn_id, from_continue_checklist(source), key=call_id or None
            )
            if checklist is not None:
                self.log.add_block(target, checklist)


def read_index(sessions_dir: Path) -> dict[str, JsonObject]:
    """``sessions.json`` entries by session id; empty when missing or unreadable."""
    try:
        data = json.loads(read_regular_bytes(sessions_dir / "sessions.json"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    entries = data if isinstance(data, list) else []
    return {
        e["sessionId"]: e
        for e in entries
        if isinstance(e, dict) and isinstance(e.get("sessionId"), str)
    }


class ContinueStore(AgentStore):
    runtime = RUNTIME
    append_only = False

    def __init__(self, home: AgentHome) -> None:
        super().__init__(home)
        self._index_cache: tuple[object, dict[str, JsonObject]] | None = None

    @property
    def sessions_dir(self) -> Path:
        return self.home.root / "sessions"

    def session_paths(self) -> Iterator[Path]:
        """Every session file, from a directory listing only."""
        for path in sorted(self.sessions_dir.glob("*.json")):
            if path.name != "sessions.json":
                yield path

    def discover(self) -> Iterator[SessionSource]:
        return self.describe_each(self.session_paths())

    def _index(self) -> dict[str, JsonObject]:
        """``sessions.json``, read again only when it changed (cn rewrites it per update)."""
        index_path = self.sessions_dir / "sessions.json"
        try:
            stat = index_path.stat()
            key: object = (stat.st_size, stat.st_mtime_ns)
        except OSError:
            key = None
        cached = self._index_cache
        if cached is None or cached[0] != key:
            cached = (key, read_index(self.sessions_dir))
            self._index_cache = cached
        return cached[1]

    def describe(self, path: Path) -> SessionSource | None:
        if not path.is_file():
            return None
        entry = self._index().get(path.stem, {})
        return SessionSource(
            runtime=RUNTIME,
            session_id=path.stem,
            path=path,
            runtime_handle={"sessionId": path.stem},
            title=_title(entry.get("title")) or _first_request(path),
            workspace_path=as_str(entry.get("workspaceDirectory")),
            created_at=_iso(entry.get("dateCreated")),
            updated_at=iso_mtime(path),
        )

    def load(self, source: SessionSource) -> LoadedSession:
        session = _Session()
        data: object = None
        try:
            if source.path.stat().st_size > MAX_FILE_BYTES:
                session.skipped.add("oversized_file")
            else:
                data = json.loads(read_regular_bytes(source.path))
        except FileNotFoundError:
            return LoadedSession([], SessionSummary(status="missing"))
        except (ValueError, UnicodeDecodeError):
            # A file caught mid-rewrite reads as invalid JSON; the next signature change
            # brings the complete one.
            session.skipped.add("invalid_json")
        if data is not None and not isinstance(data, dict):
            session.skipped.add("not_an_object")
            data = None
        info: Mapping[str, Any] = data if isinstance(data, dict) else {}
        if info:
            session.read(info.get("history"))
        messages = session.log.messages
        title = _title(info.get("title"))
        model = latest_model(messages)
        summary = SessionSummary(
            title=title,
            workspace_path=as_str(info.get("workspaceDirectory")),
            updated_at=iso_mtime(source.path),
            model=model or as_str(info.get("chatModelTitle")),
            message_count=len(messages),
            # The transcript's current list is the latest turn's own (CL-011, CL-064).
            checklist=current_checklist(messages),
            skipped=dict(session.skipped.counts),
        )
        return LoadedSession(messages, summary)
