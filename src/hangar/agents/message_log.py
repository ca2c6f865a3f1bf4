"""Building normalized messages turn by turn, for the parsers of many agent formats.

A :class:`MessageLog` holds the messages parsed so far and remembers the first index that
changed since the last :meth:`MessageLog.take`, which is exactly what a
:class:`~hangar.agents.base.TranscriptProjector` must report. Whole-file parsers use the same
class and simply take once. One user request makes one user message and (at most) one
assistant message: every model step, tool call and reply of that request becomes a block of
that one assistant message, so a checklist always lands on the message of its request.

The log also keeps what a :class:`~hangar.agents.base.ResumableProjector` reports: a turn
opens at each :meth:`~MessageLog.user` (or at the first message, when the session starts
with a reply), :attr:`~MessageLog.turn_starts` holds each turn's first index, and a change
to a message of an earlier turn than the last is remembered as a reach back
(:meth:`~MessageLog.reached_back`). After :meth:`~MessageLog.resume` the log starts at a
turn boundary: ``messages[0]`` has index :attr:`~MessageLog.base`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from hangar.agents.base import Carry, ProjectionDelta, ResumableProjector, Unresumable
from hangar.model import Message, TextBlock, ToolBlock, Usage
from hangar.model.messages import Block

_ENCODER = msgspec.json.Encoder()
_MESSAGES = msgspec.json.Decoder(list[Message])


class MessageLog:
    """Messages in transcript order plus the first index touched since the last take."""

    def __init__(self, on_turn: Callable[[], Carry | Unresumable] | None = None) -> None:
        self.on_turn = on_turn
        """Called when a turn opens; its answer is :attr:`turn_carry`."""
        self.turn_carry: Carry | Unresumable = None
        self.messages: list[Message] = []
        """The messages from index :attr:`base` on (``messages[i].index == base + i``)."""
        self.base = 0
        self.current: Message | None = None
        """The assistant message of the request being read, if it has one yet."""
        self.tools: dict[str, tuple[Message, ToolBlock]] = {}
        self.turn_starts: list[int] = []
        """First message index of each turn from :attr:`turn_base` on."""
        self.turn_base = 0
        self._dirty: int | None = None
        self._reached: int | None = None

    # -- turns -------------------------------------------------------------------------
    @property
    def count(self) -> int:
        """Messages in the session so far, those before :attr:`base` included."""
        return self.base + len(self.messages)

    def turns_started(self) -> int:
        return self.turn_base + len(self.turn_starts)

    def resume(self, first_index: int, turn_base: int) -> None:
        """Start an empty log at a turn boundary: the next message gets ``first_index``, the
        next turn number ``turn_base``."""
        self.base = first_index
        self.turn_base = turn_base

    def _open_turn(self, index: int) -> None:
        if self.on_turn is not None:
            self.turn_carry = self.on_turn()
        self.turn_starts.append(index)

    def reach(self, message: Message) -> None:
        """Record that a line used ``message`` (found by id): a reach back when it belongs
        to an earlier turn than the last."""
        starts = self.turn_starts
        if starts and message.index < starts[-1]:
            number = self.turn_base + bisect_right(starts, message.index) - 1
            if self._reached is None or number < self._reached:
                self._reached = number

    def reached_back(self) -> int | None:
        """The lowest turn number reached back to since the last call (then forgotten)."""
        reached, self._reached = self._reached, None
        return reached

    # -- changes -------------------------------------------------------------------------
    def touch(self, message: Message) -> None:
        """Record that ``message`` changed (it is sent again by the next take)."""
        if self._dirty is None or message.index < self._dirty:
            self._dirty = message.index
        self.reach(message)

    def user(
        self, msg_id: str, content: str, created_at: str | None = None, **fields: Any
    ) -> Message:
        """Append the user message that opens a new request (and a new turn)."""
        message = Message(
            index=self.count,
            id=msg_id,
            role="user",
            turn_id=msg_id,
            created_at=created_at,
            content=content,
            **fields,
        )
        self._open_turn(message.index)
        self._append(message)
        self.current = None
        return message

    def assistant(self, msg_id: str, created_at: str | None = None) -> Message:
        """The assistant message of the current request, created on first use."""
        if self.current is not None:
            self.touch(self.current)
            return self.current
        turn_id = msg_id
        for earlier in reversed(self.messages):
            if earlier.role == "user":
                turn_id = earlier.turn_id
                break
        message = Message(
            index=self.count,
            id=msg_id,
            role="assistant",
            turn_id=turn_id,
            created_at=created_at,
            blocks=[],
        )
        if not self.turn_starts and not self.messages:
            self._open_turn(message.index)  # a session that opens with a reply
        self._append(message)
        self.current = message
        return message

    def add_block(self, message: Message, block: Block) -> None:
        """Append a block; the last text block is the message's reply text."""
        if message.blocks is None:
            message.blocks = []
        message.blocks.append(block)
        if isinstance(block, TextBlock):
            message.content = block.text
        if isinstance(block, ToolBlock) and block.tool_use_id:
            self.tools[block.tool_use_id] = (message, block)
        self.touch(message)

    def tool(self, tool_use_id: str) -> ToolBlock | None:
        """The tool block with this id, marking its message changed."""
        found = self.tools.get(tool_use_id)
        if found is None:
            return None
        self.touch(found[0])
        return found[1]

    def add_usage(self, message: Message, usage: Usage) -> None:
        total = message.usage or Usage()
        message.usage = Usage(
            input_tokens=total.input_tokens + usage.input_tokens,
            output_tokens=total.output_tokens + usage.output_tokens,
            cache_read_tokens=total.cache_read_tokens + usage.cache_read_tokens,
            cache_write_tokens=total.cache_write_tokens + usage.cache_write_tokens,
            reasoning_tokens=total.reasoning_tokens + usage.reasoning_tokens,
        )
        self.touch(message)

    def truncate(self, length: int) -> None:
        """Drop every message from index ``length`` on (a rewind); turns that started
        there go too."""
        if length >= self.count:
            return
        cut = max(0, length - self.base)
        if cut < len(self.messages):
            self.reach(self.messages[cut])
        del self.messages[cut:]
        self.tools = {k: v for k, v in self.tools.items() if v[0].index < length}
        if self.current is not None and self.current.index >= length:
            self.current = None
        while self.turn_starts and self.turn_starts[-1] >= length:
            self.turn_starts.pop()
        if self._dirty is None or length < self._dirty:
            self._dirty = length

    def reopen_last_reply(self) -> None:
        """After a rewind, let the next blocks continue the last message if it is an
        assistant reply (else the next assistant event opens a new one)."""
        last = self.messages[-1] if self.messages else None
        self.current = last if last is not None and last.role == "assistant" else None

    def _append(self, message: Message) -> None:
        self.messages.append(message)
        if self._dirty is None or message.index < self._dirty:
            self._dirty = message.index

    # -- reading -------------------------------------------------------------------------
    def take(self) -> ProjectionDelta:
        """Messages changed since the last take, from the first changed index on.

        The messages handed out are copies: the log keeps mutating its own (a late tool
        result, a status) while a reader may be paging the ones it was given.
        """
        count = self.count
        start = count if self._dirty is None else max(self.base, min(self._dirty, count))
        self._dirty = None
        changed = self.messages[start - self.base :]
        if not changed:
            return ProjectionDelta(start, [])
        return ProjectionDelta(start, _MESSAGES.decode(_ENCODER.encode(changed)))


class LogProjector(ResumableProjector):
    """A resumable projector whose messages live in one :class:`MessageLog` (``self.log``).

    Subclasses implement ``feed`` and ``summary``, and :meth:`carry` / :meth:`apply_carry`
    when a turn inherits state from earlier lines (a model, a line counter for ids); the
    log does the rest of the :class:`~hangar.agents.base.ResumableProjector` protocol.
    """

    def __init__(self) -> None:
        self.log = MessageLog(on_turn=self.carry)

    def carry(self) -> Carry | Unresumable:
        """What a turn opening now inherits: state from before the current line."""
        return None

    def apply_carry(self, carry: Carry) -> None:
        """Restore what :meth:`carry` returned."""

    def turns_started(self) -> int:
        return self.log.turns_started()

    def turn_carry(self) -> Carry | Unresumable:
        return self.log.turn_carry

    def resume(self, carry: Carry, first_index: int, turn_base: int) -> None:
        self.log.resume(first_index, turn_base)
        self.apply_carry(carry)

    def turn_first_indexes(self) -> Sequence[int]:
        return self.log.turn_starts

    def reached_back(self) -> int | None:
        return self.log.reached_back()

    def take(self) -> ProjectionDelta:
        return self.log.take()


def latest_model(messages: list[Message], default: str | None = None) -> str | None:
    """The model of the latest message that names one, else ``default``."""
    return next((m.model for m in reversed(messages) if m.model), default)
