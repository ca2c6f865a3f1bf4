"""Cursor agent CLI transcripts:
``~/.cursor/projects/<encoded path>/agent-transcripts/<id>/<id>.jsonl`` (also flat
``agent-transcripts/<id>.jsonl``), sub-agents in ``<id>/subagents/<child>.jsonl``.

Lines are ``{"role": "user"|"assistant", "message": {"content": [blocks]}}`` with no ids
and no timestamps, so message ids are derived from line numbers (stable: the file only
grows) and times come from the file's mtime at discovery. The user's own text sits inside
``<user_query>`` when Cursor wraps it with context. Tool calls carry no id; a result
belongs to the oldest unanswered call of the current reply. Read incrementally.
Sub-agent transcripts are discovered with ``parent_session_id`` set (never their own
task) and read into the ``children`` of the parent's ``Agent``/``Task`` call whose prompt is
the child's first request (else the first child not yet claimed). A child is read when its
parent's call is; a child that grows later is seen when the parent is next re-read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hangar.agents.base import AgentStore, Carry, SessionSource, SessionSummary, TranscriptProjector
from hangar.agents.json_fields import as_map, as_str
from hangar.agents.json_records import SkipCounter, decode_object
from hangar.agents.message_log import LogProjector
from hangar.agents.peek import head_tail_records
from hangar.agents.text import content_text, title_from
from hangar.agents.timestamps import iso_mtime
from hangar.agents.tool_kinds import running_tool
from hangar.model import Message, TextBlock, ThinkingBlock, ToolBlock
from hangar.model.messages import UnknownBlock
from hangar.regular_files import read_regular_bytes

RUNTIME = "cursor"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
_TOOL_USE = {"tool_use", "tool_call"}
_TOOL_RESULT = {"tool_result", "tool-result"}
_TURN_STATUS = {
    "success": "done",
    "error": "failed",
    "aborted": "cancelled",
    "cancelled": "cancelled",
}


class CursorProjector(LogProjector):
    """Incremental reader of one Cursor agent transcript (resumable at each request; a
    turn inherits the line number, which names messages, the model and the sub-agent
    files already claimed)."""

    def __init__(self, subagents: Path | None = None) -> None:
        super().__init__()
        self.subagents = subagents
        self.claimed: set[Path] = set()
        self.skipped = SkipCounter()
        self.line = 0
        self.model: str | None = None
        self.pending: list[ToolBlock] = []

    def carry(self) -> Carry:
        claimed: list[Carry] = [path.name for path in sorted(self.claimed)]
        return {"line": self.line - 1, "model": self.model, "claimed": claimed}

    def apply_carry(self, carry: Carry) -> None:
        values = carry if isinstance(carry, dict) else {}
        line, model, claimed = values.get("line"), values.get("model"), values.get("claimed")
        self.line = line if isinstance(line, int) else 0
        self.model = model if isinstance(model, str) else None
        if self.subagents is not None and isinstance(claimed, list):
            self.claimed = {self.subagents / name for name in claimed if isinstance(name, str)}

    def feed(self, line: bytes) -> None:
        self.line += 1
        record = decode_object(line, self.skipped)
        if record is None:
            return
        role = record.get("role")
        message = record.get("message")
        content = message.get("content") if isinstance(message, Mapping) else None
        if role == "user":
            self._user(content)
        elif role == "assistant":
            self.model = as_str(record.get("model")) or self.model
            self._assistant(content)
        elif record.get("type") == "turn_ended":
            current = self.log.current
            status = _TURN_STATUS.get(as_str(record.get("status")) or "", "done")
            if current is not None:
                # Cursor records no result for some calls; once the turn ended they ran.
                for tool in self.pending:
                    tool.status = "cancelled" if status == "cancelled" else "done"
                self.pending = []
                if status != "done":
                    current.status = status  # type: ignore[assignment]
                self.log.touch(current)
        else:
            self.skipped.add(str(record.get("type") or role or "unknown"))

    def _user(self, content: object) -> None:
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts: list[str] = []
        for block in blocks:
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind in _TOOL_RESULT:
                self._result(block)
            elif kind == "text" and isinstance(text := block.get("text"), str):
                texts.append(text)
        if texts:
            text = "\n".join(texts)
            query = _QUERY.search(text)
            self.log.user(f"line-{self.line}", query.group(1) if query else text)
            self.pending = []

    def _result(self, block: Mapping[str, Any]) -> None:
        if not self.pending or self.log.current is None:
            self.skipped.add("tool_result.orphan")
            return
        tool = self.pending.pop(0)
        tool.output = content_text(block.get("content"))
        tool.status = "failed" if block.get("is_error") else "done"
        tool.is_error = block.get("is_error") is True
        self.log.touch(self.log.current)

    def _assistant(self, content: object) -> None:
        target = self.log.assistant(f"line-{self.line}")
        target.model = self.model or target.model
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for n, block in enumerate(blocks):
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                self.log.add_block(target, TextBlock(block["text"]))
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                self.log.add_block(target, ThinkingBlock(block["thinking"]))
            elif kind in _TOOL_USE:
                call_id = as_str(block.get("id")) or f"line-{self.line}-{n}"
                tool = running_tool(call_id, as_str(block.get("name")), block.get("input"))
                if tool.kind == "subagent" and self.subagents is not None:
                    tool.children = self._child(block.get("input"))
                self.log.add_block(target, tool)
                self.pending.append(tool)
            else:
                self.skipped.add(f"block.{kind}")
                self.log.add_block(target, UnknownBlock(f"cursor.{kind}", dict(block)))

    def _child(self, call_input: object) -> list[Message] | None:
        """The sub-agent transcript this call started, parsed (see the module docstring)."""
        assert self.subagents is not None
        prompt = as_map(call_input).get("prompt")
        parsed: list[tuple[Path, list[Message]]] = []
        for path in sorted(self.subagents.glob("*.jsonl")):
            if path in self.claimed:
                continue
            child = CursorProjector()
            try:
                data = read_regular_bytes(path)
            except OSError:
                continue
            for line in data.split(b"\n"):
                child.feed(line)
            parsed.append((path, child.take().messages))
        if not parsed:
            return None
        chosen = next((p for p in parsed if p[1] and p[1][0].content == prompt), parsed[0])
        self.claimed.add(chosen[0])
        return chosen[1]

    def summary(self) -> SessionSummary:
        messages = self.log.messages
        first_user = next((m.content for m in messages if m.role == "user"), None)
        return SessionSummary(
            title=first_user[:80] if first_user else None,
            model=self.model,
            message_count=self.log.count,
            skipped=dict(self.skipped.counts),
        )


def _workspace(project_dir: Path) -> str | None:
    """Cursor encodes the workspace path with ``-`` for ``/``; ambiguous, so only a folder
    that exists under the decoded path is believed."""
    candidate = Path("/" + project_dir.name.replace("-", "/"))
    return str(candidate) if candidate.is_dir() else None


class CursorStore(AgentStore):
    runtime = RUNTIME
    append_only = True

    def session_paths(self) -> Iterator[Path]:
        """Every transcript, from directory listings only."""
        for transcripts in sorted((self.home.root / "projects").glob("*/agent-transcripts")):
            yield from sorted(transcripts.glob("*.jsonl"))
            for folder in sorted(p for p in transcripts.iterdir() if p.is_dir()):
                main = folder / f"{folder.name}.jsonl"
                if main.is_file():
                    yield main
                yield from sorted((folder / "subagents").glob("*.jsonl"))

    def discover(self) -> Iterator[SessionSource]:
        return self.describe_each(self.session_paths())

    def describe(self, path: Path) -> SessionSource | None:
        if path.parent.name == "subagents":
            transcripts, parent = path.parents[2], path.parent.parent.name
        elif path.parent.name == path.stem:
            transcripts, parent = path.parents[1], None
        else:
            transcripts, parent = path.parent, None
        if transcripts.name != "agent-transcripts" or not path.is_file():
            return None
        return self._source(path, path.stem, _workspace(transcripts.parent), parent)

    def _source(
        self, path: Path, session_id: str, workspace: str | None, parent: str | None
    ) -> SessionSource:
        head, _ = head_tail_records(path, tail_bytes=0)
        title: str | None = None
        for record in head[:4]:
            if record.get("role") == "user":
                first = CursorProjector()
                first.feed(json.dumps(record).encode())
                messages = first.take().messages
                title = title_from(messages[0].content) if messages else None
                break
        return SessionSource(
            runtime=RUNTIME,
            session_id=session_id,
            path=path,
            runtime_handle={"sessionId": session_id},
            title=title,
            workspace_path=workspace,
            updated_at=iso_mtime(path),
            parent_session_id=parent,
        )

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        nested = source.parent_session_id is None and source.path.parent.name == source.session_id
        return CursorProjector(source.path.parent / "subagents" if nested else None)
