"""The Claude Code transcript projector.

A turn opens at each user line carrying a prompt (meta lines, caveats, command output and
tool results do not open one). Assistant lines are merged into the turn's reply by
``message.id`` (one API message is often split over several lines); ``tool_result`` lines
complete the tool block with the same id, using ``toolUseResult`` for sub-agent links.
Sidechain lines in a main transcript belong to sub-agents and are skipped; a sub-agent's own
file is read into ``ToolBlock.children`` of the call that started it. Non-chat line types are
counted in ``summary().skipped``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from hangar.agents.base import Carry, SessionSummary
from hangar.agents.checklist_rules import ChecklistLedger
from hangar.agents.checklists import from_claude_todowrite
from hangar.agents.claude import records as r
from hangar.agents.claude.prompts import INTERRUPTED, user_content
from hangar.agents.claude.turns import ClaudeTurn
from hangar.agents.json_fields import text_or_none
from hangar.agents.projection import TurnProjector
from hangar.agents.text import content_text
from hangar.agents.tool_kinds import tool_kind
from hangar.agents.tool_output import cap_output
from hangar.model import (
    CompactionBlock,
    ContextUsage,
    ImageBlock,
    Message,
    PlanBlock,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
    Usage,
)
from hangar.regular_files import open_regular
from hangar.tolerant_lines import repaired_after_refusal, tolerant_line

ChildLoader = Callable[[str, Any], list[Message] | None]


def _usage(raw: r.TokenUsage | None) -> Usage | None:
    if raw is None:
        return None
    return Usage(
        input_tokens=raw.input_tokens,
        output_tokens=raw.output_tokens,
        cache_read_tokens=raw.cache_read_input_tokens,
        cache_write_tokens=raw.cache_creation_input_tokens,
    )


class ClaudeProjector(TurnProjector):
    repairs_lone_surrogates = True  # msgspec refuses them; feed() repairs and decodes again
    accepts_line_endings = True  # every line goes to a msgspec decoder only

    def __init__(self, *, child: bool = False, load_child: ChildLoader | None = None) -> None:
        super().__init__()
        self.child = child
        self.load_child = load_child
        self.cwd: str | None = None
        self.first_timestamp: str | None = None
        self.last_timestamp: str | None = None
        self.first_prompt: str | None = None
        self.titles: dict[str, str] = {}
        self.model: str | None = None
        self.context_usage: ContextUsage | None = None
        self.checklists = ChecklistLedger()
        self.calls: dict[str, tuple[int, ToolBlock]] = {}

    def carry(self) -> Carry:
        # The context usage of the latest reply: a resumed projector reports it until a
        # reply of its own names one.
        return {"contextUsage": msgspec.to_builtins(self.context_usage)}

    def apply_carry(self, carry: Carry) -> None:
        usage = carry.get("contextUsage") if isinstance(carry, dict) else None
        try:
            self.context_usage = msgspec.convert(usage, ContextUsage | None)
        except msgspec.ValidationError:
            self.context_usage = None

    def _turn(self) -> ClaudeTurn:
        if not self.turns:
            self.add_turn(ClaudeTurn(turn_id=f"turn-{self.next_turn_number()}"))
        position = len(self.turns) - 1
        self.touch(position)
        turn = self.turns[position]
        assert isinstance(turn, ClaudeTurn)
        return turn

    def feed(self, line: bytes) -> None:
        try:
            record = r.decode_line(line)
        except msgspec.DecodeError as refused:
            repaired = repaired_after_refusal(line)
            if repaired is not None:
                self.feed(repaired)
            elif isinstance(refused, msgspec.ValidationError):
                self.skip("invalid_record")
            else:
                self.skip("invalid_json")
            return
        timestamp = text_or_none(record.timestamp)
        if timestamp:
            self.first_timestamp = self.first_timestamp or timestamp
            self.last_timestamp = timestamp
        if isinstance(record.cwd, str) and record.cwd and self.cwd is None:
            self.cwd = record.cwd
        kind = record.type
        if record.is_sidechain is True and not self.child and kind in ("user", "assistant"):
            self.skip("sidechain")
        elif kind == "user":
            self._user(record, timestamp)
        elif kind == "assistant":
            self._assistant(record, timestamp)
        elif kind == "system":
            self._system(record, timestamp)
        elif kind in ("summary", "custom-title", "ai-title"):
            value = {"summary": record.summary, "custom-title": record.custom_title}.get(
                kind, record.ai_title
            )
            if isinstance(value, str) and value.strip():
                self.titles[kind] = value.strip()
            self.skip(kind)
        else:
            self.skip(str(kind) if kind else "untyped")

    # ---------------------------------------------------------------- users
    def _user(self, record: r.Line, timestamp: str | None) -> None:
        content = record.message.content if record.message else record.content
        if record.is_meta is True:
            self.skip("meta")
            return
        if record.is_compact_summary is True:
            self._turn().blocks.append(CompactionBlock(text=content_text(content)))
            return
        prompt, attachments, results = user_content(content)
        if results:
            self._tool_results(results, r.tool_use_result(record.tool_use_result))
            return
        if isinstance(content, str | list) and INTERRUPTED in content_text(content)[:64]:
            if self.turns:
                self._turn().cancelled = True
            return
        if prompt is None and not attachments:
            self.skip("hidden_user")
            return
        self.first_prompt = self.first_prompt or prompt
        uuid = text_or_none(record.uuid) or f"turn-{self.next_turn_number()}"
        turn = ClaudeTurn(turn_id=uuid, prompt=prompt, attachments=attachments)
        turn.prompt_at = timestamp
        self.touch(self.add_turn(turn))

    def _tool_results(
        self, results: list[r.ContentBlock], tool_use_result: r.ToolUseResult | None
    ) -> None:
        for result in results:
            tool_use_id = result.tool_use_id
            found = self.calls.get(tool_use_id) if isinstance(tool_use_id, str) else None
            if found is None:
                self.skip("orphan_tool_result")
                continue
            position, block = found
            self.touch(position)
            shown, truncated = cap_output(content_text(result.content))
            block.output, block.truncated = shown, truncated
            block.is_error = result.is_error is True
            block.status = "failed" if block.is_error else "done"
            if tool_use_result is not None:
                duration = tool_use_result.total_duration_ms
                if isinstance(duration, int):
                    block.duration_ms = duration
                agent_id = tool_use_result.agent_id
                if isinstance(agent_id, str) and self.load_child is not None:
                    block.children = self.load_child(agent_id, block.input)

    # ------------------------------------------------------------ assistant
    def _assistant(self, record: r.Line, timestamp: str | None) -> None:
        message = record.message
        if message is None:
            self.skip("assistant_without_message")
            return
        turn = self._turn()
        position = len(self.turns) - 1
        turn.assistant_at = turn.assistant_at or timestamp
        message_id = text_or_none(message.id) or text_or_none(record.uuid) or ""
        model = text_or_none(message.model)
        if model and model != "<synthetic>":
            turn.model = self.model = model
        usage = _usage(message.usage)
        if usage is not None and message_id:
            turn.usage_by_message[message_id] = usage
            total = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
            self.context_usage = ContextUsage(total_tokens=total, last_tokens=total)
        if isinstance(message.stop_reason, str):
            turn.stop_reason = message.stop_reason
        if record.is_api_error_message is True:
            turn.error = r.api_error_text(record)
            return
        content = message.content
        if isinstance(content, str):
            content = [r.ContentBlock(type="text", text=content)]
        for block in content or []:
            self._assistant_block(turn, position, message_id, block)

    def _assistant_block(
        self, turn: ClaudeTurn, position: int, message_id: str, block: r.ContentBlock
    ) -> None:
        kind = block.type
        if kind == "tool_use":
            key = (kind, str(block.id or len(turn.blocks)))
        else:
            text = block.text or block.thinking or block.data or ""
            key = (f"{message_id}:{kind}", str(text)[:256])
        if key in turn.block_keys:
            return
        turn.block_keys.add(key)
        if kind == "text" and isinstance(block.text, str):
            turn.blocks.append(TextBlock(block.text))
        elif kind == "thinking":
            turn.blocks.append(ThinkingBlock(str(block.thinking or "")))
        elif kind == "redacted_thinking":
            turn.blocks.append(ThinkingBlock("", redacted=True))
        elif kind == "tool_use":
            self._tool_use(turn, position, block)
        elif kind == "image":
            source = block.source if isinstance(block.source, dict) else {}
            data, media = source.get("data"), source.get("media_type") or "image/png"
            payload = f"data:{media};base64,{data}" if isinstance(data, str) else None
            turn.blocks.append(ImageBlock(render_payload=payload, mime_type=media))
        else:
            self.skip(f"block.{kind}")

    def _tool_use(self, turn: ClaudeTurn, position: int, block: r.ContentBlock) -> None:
        name = str(block.name or "tool")
        tool_id = str(block.id or f"{turn.turn_id}:tool:{len(turn.blocks)}")
        tool_input = block.input
        tool = ToolBlock(tool_id, name, tool_input, status="running", kind=tool_kind(name))
        turn.blocks.append(tool)
        earlier = self.calls.get(tool_id)
        if earlier is not None:
            self.reach(earlier[0])  # a reused id: a resumed projector would not know it
        self.calls[tool_id] = (position, tool)
        if name == "TodoWrite":
            # Sub-agents' TodoWrite calls are in their own files and own projectors (CL-036).
            checklist = self.checklists.offer(
                position, from_claude_todowrite(tool_input), key=tool_id
            )
            if checklist is not None:
                turn.blocks.append(checklist)
        elif name == "ExitPlanMode" and isinstance(tool_input, dict):
            plan = tool_input.get("plan")
            if isinstance(plan, str):
                turn.blocks.append(PlanBlock(plan))

    # --------------------------------------------------------------- system
    def _system(self, record: r.Line, timestamp: str | None) -> None:
        subtype = record.subtype
        if subtype == "compact_boundary":
            self._turn().blocks.append(CompactionBlock(text=text_or_none(record.content)))
        elif subtype == "turn_duration" and self.turns:
            self._turn().completed_at = timestamp
        else:
            self.skip(f"system.{subtype}")

    # -------------------------------------------------------------- summary
    def summary(self) -> SessionSummary:
        title = None
        for kind in ("custom-title", "ai-title", "summary"):
            title = title or self.titles.get(kind)
        title = title or (self.first_prompt.splitlines()[0][:120] if self.first_prompt else None)
        checklist = self.checklists.current(self.last_position)
        return SessionSummary(
            title=title,
            workspace_path=self.cwd,
            created_at=self.first_timestamp,
            updated_at=self.last_timestamp,
            model=self.model,
            status=self.session_status(),
            message_count=self.message_count,
            checklist=checklist,
            context_usage=self.context_usage,
            skipped=dict(self.skipped),
        )


def read_child(path: Path) -> list[Message]:
    """All messages of a sub-agent transcript (read-only, whole file)."""
    projector = ClaudeProjector(child=True)
    with open_regular(path) as handle:
        for line in handle:
            if line.strip():
                projector.feed(tolerant_line(line.rstrip(b"\r\n")))
    return projector.take().messages
