"""Pages of a transcript, newest first, with opaque ``beforeCursor`` values.

A cursor encodes "messages before index N". Indexes are stable (a message keeps its index
for the life of the transcript; appends only replace messages from the first affected turn
on), so a cursor handed out earlier stays valid after the file grew.
"""

from __future__ import annotations

import base64
import binascii

from hangar.errors import UsageError, shown
from hangar.model import (
    Checklist,
    ChecklistBlock,
    ContextUsage,
    EarlierChecklist,
    Message,
    Transcript,
)

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000


def encode_cursor(before_index: int) -> str:
    return base64.urlsafe_b64encode(f"i:{before_index}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The index a cursor points before; a malformed cursor is a ``UsageError``."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, number = text.partition(":")
        if kind != "i":
            raise ValueError(kind)
        value = int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise UsageError(f"invalid beforeCursor: {shown(cursor)!r}") from None
    if value < 0:
        raise UsageError(f"invalid beforeCursor: {shown(cursor)!r}")
    return value


def check_limit(limit: int) -> None:
    if limit < 1 or limit > MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}")


def window(total: int, limit: int, before_cursor: str | None) -> tuple[int, int]:
    """``(start, end)`` message indexes of the page a request asks for."""
    check_limit(limit)
    end = total if before_cursor is None else min(decode_cursor(before_cursor), total)
    return max(0, end - limit), end


def user_message_index(messages: list[Message], client_id: str) -> int | None:
    """The index of the latest user message with ``clientUserMessageId`` ``client_id``: a
    retried turn repeats its message's id, and the latest is the one that was answered."""
    for message in reversed(messages):
        if message.role == "user" and message.client_user_message_id == client_id:
            return message.index
    return None


def cursor_around(total: int, index: int, limit: int) -> str:
    """The ``beforeCursor`` of the ``limit``-message page with message ``index`` in its
    middle (or as near as the transcript's end allows)."""
    check_limit(limit)
    return encode_cursor(min(total, index + 1 + limit // 2))


def page(
    messages: list[Message],
    *,
    limit: int = DEFAULT_LIMIT,
    before_cursor: str | None = None,
    checklist: Checklist | None = None,
    context_usage: ContextUsage | None = None,
    base: int = 0,
) -> Transcript:
    """The last ``limit`` messages before the cursor (or the end).

    ``messages`` hold indexes ``base …``; the page must not reach below ``base`` (callers
    read more of the transcript first: see ``TranscriptEngine.read(min_index=…)``).
    """
    total = base + len(messages)
    start, end = window(total, limit, before_cursor)
    if start < base:
        raise ValueError(f"page starts at {start}, below the loaded base {base}")
    has_more = start > 0
    return Transcript(
        messages=messages[start - base : end - base],
        total_messages=total,
        has_more=has_more,
        before_cursor=encode_cursor(start) if has_more else None,
        checklist=checklist,
        context_usage=context_usage,
    )


def earlier_checklist(messages: list[Message], base: int = 0) -> EarlierChecklist | None:
    """The last checklist any loaded message committed, with its turn number when the whole
    transcript is loaded (``base == 0``). For a transcript whose latest turn wrote none."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        blocks = [b for b in message.blocks or [] if isinstance(b, ChecklistBlock)]
        if not blocks:
            continue
        last = blocks[-1]
        number = None
        if base == 0:
            turns = {m.turn_id for m in messages[: position + 1]}
            number = len(turns)
        return EarlierChecklist(
            checklist=Checklist(source=last.source, items=tuple(last.items)),
            message_index=message.index,
            turn_number=number,
        )
    return None
