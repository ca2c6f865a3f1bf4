"""One Claude Code turn: the prompt, then every API message of the reply merged in order."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from hangar.agents.projection import TurnState
from hangar.model import Attachment, Block, Message, TextBlock, ToolBlock, Usage
from hangar.model.messages import MessageStatus


@dataclass
class ClaudeTurn(TurnState):
    turn_id: str
    prompt: str | None = None
    attachments: list[Attachment] = field(default_factory=list)
    prompt_at: str | None = None
    blocks: list[Block] = field(default_factory=list)
    block_keys: set[tuple[str, str]] = field(default_factory=set)
    usage_by_message: dict[str, Usage] = field(default_factory=dict)
    model: str | None = None
    assistant_at: str | None = None
    completed_at: str | None = None
    stop_reason: str | None = None
    error: str | None = None
    cancelled: bool = False
    first_index: int = 0
    count: int = 0

    def status(self, is_last: bool) -> MessageStatus:
        if self.cancelled:
            return "cancelled"
        running = any(isinstance(b, ToolBlock) and b.status == "running" for b in self.blocks)
        if is_last and (running or self.stop_reason == "tool_use"):
            return "streaming"
        if self.error and not any(isinstance(b, TextBlock) for b in self.blocks):
            return "failed"
        return "done"

    def _usage(self) -> Usage | None:
        if not self.usage_by_message:
            return None
        total = Usage()
        for usage in self.usage_by_message.values():
            total.input_tokens += usage.input_tokens
            total.output_tokens += usage.output_tokens
            total.cache_read_tokens += usage.cache_read_tokens
            total.cache_write_tokens += usage.cache_write_tokens
        return total

    def render(self, first_index: int, is_last: bool) -> list[Message]:
        out: list[Message] = []
        if self.prompt is not None or self.attachments:
            out.append(
                Message(
                    index=first_index,
                    id=f"{self.turn_id}:user",
                    role="user",
                    turn_id=self.turn_id,
                    created_at=self.prompt_at,
                    content=self.prompt or "",
                    attachments=self.attachments or None,
                )
            )
        status = self.status(is_last)
        if not self.blocks and not self.error and status != "cancelled":
            return out
        blocks: list[Block] = []
        final_text = ""
        for block in self.blocks:
            if isinstance(block, TextBlock):
                final_text = block.text
            elif (
                isinstance(block, ToolBlock) and block.status == "running" and status != "streaming"
            ):
                settled = "cancelled" if status == "cancelled" else "done"
                block = msgspec.structs.replace(block, status=settled)
            blocks.append(block)
        out.append(
            Message(
                index=first_index + len(out),
                id=f"{self.turn_id}:assistant",
                role="assistant",
                turn_id=self.turn_id,
                created_at=self.assistant_at,
                completed_at=self.completed_at,
                status=status,
                content=final_text,
                blocks=blocks,
                usage=self._usage(),
                model=self.model,
                error=self.error,
            )
        )
        return out
