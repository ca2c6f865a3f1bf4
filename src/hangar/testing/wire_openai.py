"""SSE encodings of a :class:`Reply` for the OpenAI Responses and Chat Completions APIs.

Responses (codex): ``response.created``, then per output item ``output_item.added``, its
deltas (reasoning summary text, output text, or function call arguments), ``output_item.done``,
and ``response.completed`` with usage. Chat Completions (opencode, cn):
``chat.completion.chunk`` objects with ``reasoning_content`` / ``content`` / ``tool_calls``
deltas, a ``finish_reason`` chunk, a usage chunk and ``[DONE]``; or, for a request that does not
ask to stream, one ``chat.completion`` object.
"""

from __future__ import annotations

import json
import time
from typing import Any

from hangar.testing.model_reply import MODEL, Reply, SseEvent, deltas


def _usage(reply: Reply) -> dict[str, Any]:
    inp, out = reply.usage["input"], reply.usage["output"]
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": inp + out,
    }


def responses_stream(reply: Reply) -> list[SseEvent]:
    """The event sequence codex accepts for one model turn (with deltas, for app-server)."""
    rid = reply.reply_id
    events: list[SseEvent] = []
    output: list[dict[str, Any]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, **data}))

    base = {"id": f"resp_{rid}", "object": "response", "model": MODEL, "created_at": 0}
    emit("response.created", response={**base, "status": "in_progress", "output": []})
    if reply.reasoning is not None:
        idx, item_id = len(output), f"rs_{rid}"
        emit(
            "response.output_item.added",
            output_index=idx,
            item={"type": "reasoning", "id": item_id, "summary": []},
        )
        for chunk in deltas(reply.reasoning):
            emit(
                "response.reasoning_summary_text.delta",
                item_id=item_id,
                output_index=idx,
                summary_index=0,
                delta=chunk,
            )
        item = {
            "type": "reasoning",
            "id": item_id,
            "summary": [{"type": "summary_text", "text": reply.reasoning}],
        }
        emit("response.output_item.done", output_index=idx, item=item)
        output.append(item)
    if reply.text is not None:
        idx, item_id = len(output), f"msg_{rid}"
        emit(
            "response.output_item.added",
            output_index=idx,
            item={
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            },
        )
        part = {"type": "output_text", "text": "", "annotations": []}
        loc = {"item_id": item_id, "output_index": idx, "content_index": 0}
        emit("response.content_part.added", **loc, part=part)
        for chunk in deltas(reply.text):
            emit("response.output_text.delta", **loc, delta=chunk)
        emit("response.output_text.done", **loc, text=reply.text)
        emit("response.content_part.done", **loc, part={**part, "text": reply.text})
        item = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [{**part, "text": reply.text}],
        }
        emit("response.output_item.done", output_index=idx, item=item)
        output.append(item)
    if reply.tool is not None:
        idx, item_id = len(output), f"fc_{rid}"
        arguments = json.dumps(reply.tool.arguments)
        call = {
            "type": "function_call",
            "id": item_id,
            "call_id": reply.tool.call_id,
            "name": reply.tool.name,
        }
        emit(
            "response.output_item.added",
            output_index=idx,
            item={**call, "arguments": "", "status": "in_progress"},
        )
        emit(
            "response.function_call_arguments.delta",
            item_id=item_id,
            output_index=idx,
            delta=arguments,
        )
        emit(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=idx,
            arguments=arguments,
        )
        item = {**call, "arguments": arguments, "status": "completed"}
        emit("response.output_item.done", output_index=idx, item=item)
        output.append(item)
    emit(
        "response.completed",
        response={**base, "status": "completed", "output": output, "usage": _usage(reply)},
    )
    return events


def chat_stream(reply: Reply) -> list[SseEvent]:
    """``chat.completion.chunk`` events, usage chunk and ``[DONE]`` (no event names)."""
    created = int(time.time())

    def chunk(delta: dict[str, Any] | None, finish: str | None = None) -> SseEvent:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        return (
            None,
            {
                "id": f"chatcmpl_{reply.reply_id}",
                "object": "chat.completion.chunk",
                "created": created,
                "model": MODEL,
                "choices": choices,
            },
        )

    events = [chunk({"role": "assistant", "content": ""})]
    for piece in deltas(reply.reasoning) if reply.reasoning is not None else []:
        events.append(chunk({"reasoning_content": piece}))
    for piece in deltas(reply.text) if reply.text is not None else []:
        events.append(chunk({"content": piece}))
    if reply.tool is not None:
        head = {
            "index": 0,
            "id": reply.tool.call_id,
            "type": "function",
            "function": {"name": reply.tool.name, "arguments": ""},
        }
        events.append(chunk({"tool_calls": [head]}))
        body = {"index": 0, "function": {"arguments": json.dumps(reply.tool.arguments)}}
        events.append(chunk({"tool_calls": [body]}))
    events.append(chunk({}, "tool_calls" if reply.tool is not None else "stop"))
    inp, out = reply.usage["input"], reply.usage["output"]
    usage_event = chunk(None)
    assert isinstance(usage_event[1], dict)
    usage_event[1]["usage"] = {
        "prompt_tokens": inp,
        "completion_tokens": out,
        "total_tokens": inp + out,
    }
    events.append(usage_event)
    events.append((None, "[DONE]"))
    return events


def chat_completion(reply: Reply) -> dict[str, Any]:
    """The same reply as one non-streamed ``chat.completion`` object (``stream`` absent or
    false, as Grok CLI's headless mode asks)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or ""}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    if reply.tool is not None:
        message["tool_calls"] = [
            {
                "id": reply.tool.call_id,
                "type": "function",
                "function": {
                    "name": reply.tool.name,
                    "arguments": json.dumps(reply.tool.arguments),
                },
            }
        ]
    inp, out = reply.usage["input"], reply.usage["output"]
    return {
        "id": f"chatcmpl_{reply.reply_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool is not None else "stop",
            }
        ],
        "usage": {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out},
    }


def openai_error(status: int, message: str) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
