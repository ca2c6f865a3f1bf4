"""GitHub Copilot CLI: ``session-state/<id>/events.jsonl`` (+ ``workspace.yaml``) and the
legacy ``session-state/<id>.jsonl``.

Both are append-only event logs ``{type, data, id, timestamp, parentId}``, read
incrementally. ``user.message`` opens a request; ``assistant.message``,
``assistant.reasoning`` and ``tool.execution_*`` fill its one assistant message. Events of
a sub-agent carry ``parentToolCallId`` and become the ``children`` of that tool call.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from hangar.agents.base import AgentStore, Carry, SessionSource, SessionSummary, TranscriptProjector
from hangar.agents.json_fields import as_int, as_map, as_str, decoded_arguments
from hangar.agents.json_records import SkipCounter, decode_object
from hangar.agents.message_log import LogProjector, latest_model
from hangar.agents.peek import head_tail_records
from hangar.agents.text import title_from
from hangar.agents.tool_kinds import running_tool
from hangar.agents.tool_output import output_text
from hangar.model import Attachment, Message, TextBlock, ThinkingBlock, ToolBlock, Usage
from hangar.model.messages import UnknownBlock
from hangar.regular_files import read_regular_bytes

RUNTIME = "copilot"
HEAD_BYTES = 8192

#: Records that carry nothing for the transcript (telemetry, hooks, bookkeeping).
_IGNORED = {
    "session.info",
    "session.model_change",
    "session.truncation",
    "session.usage_checkpoint",
    "session.auto_mode_resolved",
    "session.shutdown",
    "system.message",
    "system.notification",
    "hook.start",
    "hook.end",
    "assistant.turn_start",
    "assistant.turn_end",
    "subagent.completed",
}


class CopilotProjector(LogProjector):
    """Incremental reader of one Copilot CLI event log (resumable at each request: a turn
    inherits the model in use)."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped = SkipCounter()
        self.meta: dict[str, str] = {}
        self.model: str | None = None
        self.children: dict[str, tuple[Message, ToolBlock]] = {}
        """Tools run by sub-agents, by call id, with the top-level message that shows them."""

    def carry(self) -> Carry:
        return {"model": self.model}

    def apply_carry(self, carry: Carry) -> None:
        model = carry.get("model") if isinstance(carry, dict) else None
        self.model = model if isinstance(model, str) else None

    def feed(self, line: bytes) -> None:
        event = decode_object(line, self.skipped)
        if event is None:
            return
        kind = as_str(event.get("type")) or "?"
        data = as_map(event.get("data"))
        when = as_str(event.get("timestamp"))
        event_id = as_str(event.get("id")) or f"event-{self.log.count}"
        handler = getattr(self, "_" + kind.replace(".", "_"), None)
        if handler is not None:
            handler(event_id, when, data)
        elif kind not in _IGNORED:
            self.skipped.add(kind)
        if kind == "session.model_change" and isinstance(data.get("newModel"), str):
            self.model = data["newModel"]

    # -- session -------------------------------------------------------------------------
    def _session_start(self, _id: str, when: str | None, data: Mapping[str, Any]) -> None:
        for key in ("sessionId", "startTime", "selectedModel", "copilotVersion"):
            if isinstance(data.get(key), str):
                self.meta.setdefault(key, data[key])
        self._context(data)
        self.model = as_str(data.get("selectedModel")) or self.model

    def _session_resume(self, _id: str, when: str | None, data: Mapping[str, Any]) -> None:
        self._context(data)

    def _context(self, data: Mapping[str, Any]) -> None:
        context = data.get("context")
        if isinstance(context, Mapping) and isinstance(context.get("cwd"), str):
            self.meta["cwd"] = context["cwd"]

    def _session_error(self, event_id: str, when: str | None, data: Mapping[str, Any]) -> None:
        message = self.log.assistant(event_id, when)
        text = as_str(data.get("message")) or "error"
        self.log.add_block(message, UnknownBlock("copilot.session.error", dict(data)))
        message.error = text
        message.status = "failed"

    def _abort(self, event_id: str, when: str | None, data: Mapping[str, Any]) -> None:
        if self.log.current is not None:
            self.log.current.status = "cancelled"
            self.log.touch(self.log.current)

    # -- user ----------------------------------------------------------------------------
    def _user_message(self, event_id: str, when: str | None, data: Mapping[str, Any]) -> None:
        attachments = [
            Attachment(
                name=as_str(a.get("displayName")) or as_str(a.get("path")) or "attachment",
                path=as_str(a.get("path")),
            )
            for a in data.get("attachments") or []
            if isinstance(a, Mapping)
        ]
        content = as_str(data.get("content")) or ""
        self.log.user(event_id, content, when, attachments=attachments or None)

    # -- assistant -----------------------------------------------------------------------
    def _target(self, event_id: str, when: str | None, data: Mapping[str, Any]) -> Message:
        """The message an event writes into: a sub-agent's child message or the turn's."""
        parent_call = as_str(data.get("parentToolCallId"))
        owner = self.log.tools.get(parent_call or "") or self.children.get(parent_call or "")
        if parent_call and owner is not None:
            top, tool = owner
            self.log.touch(top)
            if tool.children is None:
                tool.children = []
            if not tool.children:
                tool.children.append(
                    Message(
                        index=0,
                        id=event_id,
                        role="assistant",
                        turn_id=parent_call,
                        created_at=when,
                        blocks=[],
                    )
                )
            tool.kind = "subagent"
            return tool.children[-1]
        return self.log.assistant(as_str(data.get("messageId")) or event_id, when)

    def _add(self, target: Message, block: Any, parent_call: str | None) -> None:
        owner = self.log.tools.get(parent_call or "") or self.children.get(parent_call or "")
        if owner is None or target.turn_id != parent_call:
            self.log.add_block(target, block)
            return
        # A child message: keep its blocks and remember its tools for their results.
        top = owner[0]
        self.log.touch(top)
        if target.blocks is None:
            target.blocks = []
        target.blocks.append(block)
        if isinstance(block, TextBlock):
            target.content = block.text
        if isinstance(block, ToolBlock):
            self.children[block.tool_use_id] = (top, block)

    def _assistant_message(self, event_id: str, when: str | None, data: Mapping[str, Any]) -> None:
        parent_call = as_str(data.get("parentToolCallId"))
        target = self._target(event_id, when, data)
        target.model = as_str(data.get("model")) or target.model or self.model
        reasoning = as_str(data.get("reasoningText"))
        if reasoning:
            self._add(target, ThinkingBlock(reasoning), parent_call)
        content = as_str(data.get("content"))
        if content:
            self._add(target, TextBlock(content), parent_call)
        for request in data.get("toolRequests") or []:
            if not isinstance(request, Mapping):
                continue
            call_id = as_str(request.get("toolCallId")) or ""
            if self._known_call(call_id):
                continue
            block = running_tool(
                call_id,
                as_str(request.get("name")),
                decoded_arguments(request.get("arguments")),
            )
            self._add(target, block, parent_call)
        tokens = as_int(data.get("outputTokens"))
        if tokens and target.turn_id != parent_call:
            self.log.add_usage(target, Usage(output_tokens=tokens))

    def _assistant_reasoning(
        self, event_id: str, when: str | None, data: Mapping[str, Any]
    ) -> None:
        text = as_str(data.get("content"))
        if text:
            target = self._target(event_id, when, data)
            self._add(target, ThinkingBlock(text), as_str(data.get("parentToolCallId")))

    def _tool_execution_start(
        self, event_id: str, when: str | None, data: Mapping[str, Any]
    ) -> None:
        call_id = as_str(data.get("toolCallId")) or event_id
        if self._known_call(call_id):
            return
        block = running_tool(
            call_id, as_str(data.get("toolName")), decoded_arguments(data.get("arguments"))
        )
        target = self._target(event_id, when, data)
        self._add(target, block, as_str(data.get("parentToolCallId")))

    def _tool_execution_complete(
        self, event_id: str, when: str | None, data: Mapping[str, Any]
    ) -> None:
        call_id = as_str(data.get("toolCallId")) or ""
        found = self.log.tools.get(call_id) or self.children.get(call_id)
        if found is None:
            self.skipped.add("tool.execution_complete.orphan")
            return
        top, block = found
        self.log.touch(top)
        success = data.get("success") is True
        block.status = "done" if success else "failed"
        block.is_error = not success
        result = data.get("result")
        if isinstance(result, Mapping):
            block.output = output_text(result.get("content"))
        telemetry = data.get("toolTelemetry")
        metrics = telemetry.get("metrics") if isinstance(telemetry, Mapping) else None
        if isinstance(metrics, Mapping) and isinstance(metrics.get("durationMs"), int):
            block.duration_ms = metrics["durationMs"]

    def _subagent_started(self, event_id: str, when: str | None, data: Mapping[str, Any]) -> None:
        found = self.log.tools.get(as_str(data.get("toolCallId")) or "")
        if found is not None:
            found[1].kind = "subagent"
            self.log.touch(found[0])

    def _known_call(self, call_id: str) -> bool:
        """Whether a call with this id was read already (a repeat is ignored)."""
        found = self.log.tools.get(call_id) or self.children.get(call_id)
        if found is not None:
            self.log.reach(found[0])
        return found is not None

    # -- contract ------------------------------------------------------------------------
    def summary(self) -> SessionSummary:
        messages = self.log.messages
        status = "done"
        if messages and messages[-1].role == "assistant" and messages[-1].status != "done":
            status = messages[-1].status
        return SessionSummary(
            workspace_path=self.meta.get("cwd"),
            created_at=self.meta.get("startTime"),
            model=latest_model(messages, self.model),
            status=status,
            message_count=self.log.count,
            skipped=dict(self.skipped.counts),
        )


def _workspace_yaml(folder: Path) -> Mapping[str, Any]:
    try:
        value = yaml.safe_load(read_regular_bytes(folder / "workspace.yaml").decode("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return value if isinstance(value, Mapping) else {}


class CopilotStore(AgentStore):
    runtime = RUNTIME
    append_only = True

    def _files(self) -> Iterator[Path]:
        state = self.home.root / "session-state"
        yield from sorted(state.glob("*/events.jsonl"))
        yield from sorted(p for p in state.glob("*.jsonl") if p.is_file())

    def session_paths(self) -> Iterator[Path]:
        """Every event log, from directory listings only."""
        return self._files()

    def discover(self) -> Iterator[SessionSource]:
        return self.describe_each(self._files())

    def describe(self, path: Path) -> SessionSource | None:
        nested = path.name == "events.jsonl"
        session_id = path.parent.name if nested else path.stem
        head, tail = head_tail_records(path)
        start = next((as_map(e.get("data")) for e in head if e.get("type") == "session.start"), {})
        first = next((as_map(e.get("data")) for e in head if e.get("type") == "user.message"), {})
        last = next((as_str(e.get("timestamp")) for e in reversed(tail)), None)
        workspace = _workspace_yaml(path.parent) if nested else {}
        context = as_map(start.get("context"))
        cwd = as_str(workspace.get("cwd")) or as_str(context.get("cwd"))
        return SessionSource(
            runtime=RUNTIME,
            session_id=session_id,
            path=path,
            runtime_handle={"sessionId": session_id},
            title=as_str(workspace.get("summary")) or title_from(as_str(first.get("content"))),
            workspace_path=cwd,
            created_at=as_str(start.get("startTime")),
            updated_at=last,
            model=as_str(start.get("selectedModel")),
        )

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        return CopilotProjector()
