"""SSE encoding of a :class:`Reply` for the Anthropic Messages API (Claude Code).

``message_start``; per content block (``thinking`` with a signature, ``text``, ``tool_use``)
``content_block_start``, deltas, ``content_block_stop``; ``message_delta`` with the stop
reason and usage; ``message_stop``.
"""

from __future__ import annotations

import json
from typing import Any

from hangar.testing.model_reply import MODEL, Reply, SseEvent, deltas


def messages_stream(reply: Reply, model: str = MODEL) -> list[SseEvent]:
    events: list[SseEvent] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, **data}))

    usage = {
        "input_tokens": reply.usage["input"],
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    emit(
        "message_start",
        message={
            "id": f"msg_{reply.reply_id}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        },
    )
    index = 0
    if reply.reasoning is not None:
        emit(
            "content_block_start",
            index=index,
            content_block={"type": "thinking", "thinking": "", "signature": ""},
        )
        for piece in deltas(reply.reasoning):
            emit(
                "content_block_delta",
                index=index,
                delta={"type": "thinking_delta", "thinking": piece},
            )
        emit(
            "content_block_delta",
            index=index,
            delta={"type": "signature_delta", "signature": f"fake-{reply.reply_id}"},
        )
        emit("content_block_stop", index=index)
        index += 1
    if reply.text is not None:
        emit("content_block_start", index=index, content_block={"type": "text", "text": ""})
        for piece in deltas(reply.text):
            emit("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
        emit("content_block_stop", index=index)
        index += 1
    if reply.tool is not None:
        emit(
            "content_block_start",
            index=index,
            content_block={
                "type": "tool_use",
                "id": reply.tool.call_id,
                "name": reply.tool.name,
                "input": {},
            },
        )
        emit(
            "content_block_delta",
            index=index,
            delta={"type": "input_json_delta", "partial_json": json.dumps(reply.tool.arguments)},
        )
        emit("content_block_stop", index=index)
    stop = "tool_use" if reply.tool is not None else "end_turn"
    emit(
        "message_delta",
        delta={"stop_reason": stop, "stop_sequence": None},
        usage={"output_tokens": reply.usage["output"]},
    )
    emit("message_stop")
    return events


def anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "api_error"
    if status == 529:
        kind = "overloaded_error"
    return {"type": "error", "error": {"type": kind, "message": message}}
