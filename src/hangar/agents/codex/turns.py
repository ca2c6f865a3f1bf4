"""One Codex turn's state and how it renders into normalized messages.

A turn holds the user's request entries and the assistant's items in file order. Records that
Codex writes twice (a ``response_item`` and an ``event_msg`` for the same text or reasoning,
an ``item_completed`` beside the user ``response_item``) are de-duplicated at render time, so
the result does not depend on which of the pair came first.

A user message that arrives while the turn already has output (guidance, ``turn/steer``) is
rendered where it came: the assistant's output before it is one message, the output after it
another, all of the same turn (RW-136, RW-137) — the order the live view showed.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from hangar.agents.codex.context import signature
from hangar.agents.codex.records import TokenUsage
from hangar.agents.projection import TurnState
from hangar.model import (
    Attachment,
    Block,
    CompactionBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
    Usage,
)
from hangar.model.messages import MessageStatus

EntryKind = Literal["text", "thinking", "compaction", "block"]


@dataclass
class UserEntry:
    text: str
    attachments: list[Attachment]
    client_id: str | None
    from_event: bool
    timestamp: str | None
    position: int = 0
    """How many assistant entries the turn had when this request came (0: it opened it)."""


@dataclass
class Entry:
    kind: EntryKind
    block: Block
    from_event: bool = False


@dataclass
class CodexTurn(TurnState):
    turn_id: str
    explicit: bool = False
    final_status: MessageStatus | None = None
    users: list[UserEntry] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    model: str | None = None
    started_at: str | None = None
    assistant_at: str | None = None
    completed_at: str | None = None
    last_agent_message: str | None = None
    error: str | None = None
    usage: Usage | None = None
    first_index: int = 0
    count: int = 0

    @property
    def has_assistant_content(self) -> bool:
        return bool(self.entries) or self.last_agent_message is not None

    def add_usage(self, last: TokenUsage) -> None:
        usage = self.usage or Usage()
        usage.input_tokens += last.input_tokens
        usage.output_tokens += last.output_tokens
        usage.cache_read_tokens += last.cached_input_tokens
        usage.reasoning_tokens += last.reasoning_output_tokens
        self.usage = usage

    def status(self, is_last: bool) -> MessageStatus:
        if self.final_status is not None:
            return self.final_status
        if is_last and self.explicit:
            return "streaming"
        if self.error is not None:
            return "failed"
        return "cancelled" if self.explicit else "done"

    def _user_entries(self) -> list[UserEntry]:
        from_events = any(u.from_event for u in self.users)
        merged: dict[str, UserEntry] = {}
        for user in self.users:
            key = signature(user.text)
            if from_events and not user.from_event and key not in merged:
                # The event carries the request; a lone response item is injected context.
                continue
            seen = merged.get(key)
            if seen is None:
                merged[key] = UserEntry(
                    user.text,
                    list(user.attachments),
                    user.client_id,
                    True,
                    user.timestamp,
                    user.position,
                )
                continue
            seen.position = min(seen.position, user.position)
            seen.client_id = seen.client_id or user.client_id
            for attachment in user.attachments:
                if attachment not in seen.attachments:
                    seen.attachments.append(attachment)
        return list(merged.values())

    def _user_message(self, user: UserEntry, number: int, index: int) -> Message:
        return Message(
            index=index,
            id=f"{self.turn_id}:user:{number}",
            role="user",
            turn_id=self.turn_id,
            created_at=user.timestamp,
            content=user.text,
            client_user_message_id=user.client_id,
            attachments=user.attachments or None,
        )

    def _blocks(self, status: MessageStatus) -> list[tuple[int, Block]]:
        """The turn's blocks, de-duplicated, each with the index of the entry it came from
        (``len(entries)`` for the final text Codex reported without an item)."""
        item_texts = {
            (e.kind, e.block.text)
            for e in self.entries
            if not e.from_event and isinstance(e.block, TextBlock | ThinkingBlock)
        }
        has_compaction = any(e.kind == "compaction" and not e.from_event for e in self.entries)
        blocks: list[tuple[int, Block]] = []
        has_text = False
        for number, entry in enumerate(self.entries):
            block = entry.block
            if entry.from_event:
                if isinstance(block, TextBlock | ThinkingBlock):
                    if (entry.kind, block.text) in item_texts:
                        continue
                elif isinstance(block, CompactionBlock) and has_compaction:
                    continue
            if isinstance(block, TextBlock):
                has_text = True
            elif (
                isinstance(block, ToolBlock)
                and block.status == "running"
                and (status != "streaming")
            ):
                settled = "cancelled" if status in ("cancelled", "failed") else "done"
                block = msgspec.structs.replace(block, status=settled)
            blocks.append((number, block))
        if not has_text and self.last_agent_message:
            blocks.append((len(self.entries), TextBlock(self.last_agent_message)))
        return blocks

    def render(self, first_index: int, is_last: bool) -> list[Message]:
        users = sorted(self._user_entries(), key=lambda u: u.position)
        status = self.status(is_last)
        blocks = self._blocks(status)
        out: list[Message] = []
        # Requests that opened the turn, then each stretch of output and the request after it.
        cuts = sorted({u.position for u in users if u.position > 0})
        stretches: list[list[Block]] = [[] for _ in range(len(cuts) + 1)]
        for number, block in blocks:
            stretches[bisect_right(cuts, number)].append(block)  # the cuts at or before it
        for stretch_number, stretch in enumerate(stretches):
            low = cuts[stretch_number - 1] if stretch_number else 0
            for user in users:
                if (user.position == 0 and stretch_number == 0) or (
                    stretch_number and user.position == low
                ):
                    out.append(self._user_message(user, users.index(user), first_index + len(out)))
            last = stretch_number == len(stretches) - 1
            if not stretch and not (last and (self.error or status in ("cancelled", "failed"))):
                continue
            texts = [b.text for b in stretch if isinstance(b, TextBlock)]
            out.append(
                Message(
                    index=first_index + len(out),
                    id=f"{self.turn_id}:assistant"
                    + (f":{stretch_number}" if stretch_number else ""),
                    role="assistant",
                    turn_id=self.turn_id,
                    created_at=self.assistant_at or self.started_at,
                    completed_at=self.completed_at if last else None,
                    status=status if last else "done",
                    content=texts[-1] if texts else "",
                    blocks=stretch,
                    usage=self.usage if last else None,
                    model=self.model,
                    error=self.error if last else None,
                )
            )
        return out
