"""Generated multi-turn sessions in the formats of the agents that resume tail-first.

Each writer makes ``turns`` requests with tool calls and results, and the records that make
resuming hard: late results and sub-agent events for an earlier request (reach-backs),
rewinds, records written again under the same id, objects glued onto one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path


def _write(path: Path, records: list[object]) -> Path:
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    return path


def copilot_session(path: Path, turns: int, output: str = "out") -> Path:
    records: list[object] = [
        {"type": "session.start", "id": "s", "data": {"selectedModel": "gpt-5-mini",
         "startTime": "2026-01-01T00:00:00Z", "context": {"cwd": "/w"}}},
    ]  # fmt: skip
    for n in range(1, turns + 1):

        def ev(kind: str, data: object, k: str, n: int = n) -> dict[str, object]:
            return {"type": kind, "id": f"e{n}{k}", "data": data}

        records.append(ev("user.message", {"content": f"request {n}"}, "u"))
        call = {"toolCallId": f"c{n}", "name": "bash", "arguments": '{"command": "ls"}'}
        records.append(ev("assistant.message", {"messageId": f"m{n}", "toolRequests": [call]}, "a"))
        records.append(ev("tool.execution_start", {"toolCallId": f"c{n}", "toolName": "bash"}, "s"))
        if n % 3 == 0:
            task = {"toolCallId": f"t{n}", "name": "task", "arguments": {}}
            records.append(ev("assistant.message", {"toolRequests": [task]}, "t"))
            records.append(ev("subagent.started", {"toolCallId": f"t{n}"}, "ts"))
            child = {"parentToolCallId": f"t{n}", "content": f"child {n}"}
            records.append(ev("assistant.message", child, "tc"))
        if n % 11 == 0:  # a late result for the previous request's call
            late = {"toolCallId": f"c{n - 1}", "success": True, "result": {"content": "late"}}
            records.append(ev("tool.execution_complete", late, "l"))
        if n % 13 == 0:  # a sub-agent event for an earlier request's task
            older = {"parentToolCallId": f"t{3 * ((n - 1) // 3)}", "content": "older child"}
            records.append(ev("assistant.message", older, "o"))
        done = {"toolCallId": f"c{n}", "success": n % 5 != 0, "result": {"content": output}}
        records.append(ev("tool.execution_complete", done, "c"))
        if n % 7 == 0:
            records.append(ev("abort", {}, "x"))
        else:
            records.append(
                ev("assistant.message", {"content": f"answer {n}", "outputTokens": 5}, "f")
            )
        if n % 4 == 0:
            records.append(ev("session.model_change", {"newModel": f"model-{n}"}, "mc"))
    return _write(path, records)


def qwen_session(path: Path, turns: int, output: str = "out") -> Path:
    lines: list[bytes] = []
    last_assistant = ""
    for n in range(1, turns + 1):
        base = {"sessionId": "q", "cwd": "/w", "timestamp": f"2026-01-01T00:{n % 60:02d}:00Z"}
        user = {
            **base,
            "uuid": f"u{n}",
            "type": "user",
            "message": {"role": "user", "parts": [{"text": f"request {n}"}]},
        }
        call = {
            **base,
            "uuid": f"a{n}",
            "type": "assistant",
            "model": f"m{n % 3}",
            "message": {
                "role": "model",
                "parts": [
                    {"text": "thinking", "thought": True},
                    {"functionCall": {"id": f"c{n}", "name": "read_file", "args": {"p": n}}},
                ],
            },
        }
        result = {
            **base,
            "uuid": f"r{n}",
            "type": "tool_result",
            "message": {
                "parts": [{"functionResponse": {"id": f"c{n}", "response": {"output": output}}}]
            },
            "toolCallResult": {"callId": f"c{n}", "status": "success"},
        }
        answer = {
            **base,
            "uuid": f"f{n}",
            "type": "assistant",
            "message": {"role": "model", "parts": [{"text": f"answer {n}"}]},
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2},
        }
        records = [user, call, result, answer]
        if n % 6 == 0 and last_assistant:  # rewind to the previous request's reply
            records.insert(1, {**base, "uuid": f"w{n}", "type": "system", "subtype": "rewind",
                               "systemPayload": {"targetUuid": last_assistant}})  # fmt: skip
        if n % 5 == 0:
            records.append({**base, "uuid": f"t{n}", "type": "system", "subtype": "custom_title",
                            "systemPayload": {"customTitle": f"title {n}"}})  # fmt: skip
        encoded = [json.dumps(r).encode() for r in records]
        if n % 9 == 0:  # the result and the reply glued onto one line
            encoded[2:4] = [encoded[2] + encoded[3]]
        if n % 10 == 0 and lines:  # this request glued after the previous line's object
            lines[-1] = lines[-1] + encoded.pop(0)
        lines += encoded
        last_assistant = f"f{n}"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def gemini_session(path: Path, turns: int, output: str = "out") -> Path:
    records: list[object] = [{"sessionId": "g", "startTime": "2026-01-01T00:00:00Z"}]
    for n in range(1, turns + 1):
        records.append({"id": f"u{n}", "type": "user", "content": [{"text": f"request {n}"}]})
        records.append({"$set": {"lastUpdated": f"2026-01-01T00:00:{n % 60:02d}Z"}})
        tool = {
            "id": f"c{n}",
            "name": "run_shell_command",
            "args": {"n": n},
            "status": "success",
            "result": [{"functionResponse": {"response": {"output": output}}}],
        }
        gem = {"id": f"g{n}", "type": "gemini", "content": "", "toolCalls": [tool],
               "model": "gemini-x", "tokens": {"input": 5, "output": 1}}  # fmt: skip
        records.append(gem)
        if n % 5 == 0:  # the reply written again under its id, with its text
            records.append({**gem, "content": f"rewritten answer {n}"})
        records.append({"type": "gemini", "content": f"answer {n}"})  # an unnamed record
        if n % 8 == 0:  # a record of the previous request written again (a reach-back)
            records.append({"id": f"g{n - 1}", "type": "gemini", "content": "changed later"})
        if n % 10 == 0:  # rewind this request's reply away
            records.append({"$rewindTo": f"g{n}"})
            records.append({"id": f"g{n}b", "type": "gemini", "content": f"again {n}"})
    return _write(path, records)


def cursor_session(path: Path, turns: int, output: str = "out") -> Path:
    records: list[object] = []
    for n in range(1, turns + 1):
        text = f"<user_query>request {n}</user_query>" if n % 2 else f"request {n}"
        records.append({"role": "user", "message": {"content": [{"type": "text", "text": text}]}})
        records.append(
            {
                "role": "assistant",
                "model": f"m{n % 4}",
                "message": {
                    "content": [
                        {"type": "thinking", "thinking": "hm"},
                        {"type": "tool_use", "name": "Bash", "input": {"command": f"ls {n}"}},
                    ]
                },
            }
        )
        records.append(
            {
                "role": "user",
                "message": {
                    "content": [
                        {"type": "tool_result", "content": [{"type": "text", "text": output}]}
                    ]
                },
            }
        )
        records.append({"role": "assistant", "message": {"content": [
            {"type": "text", "text": f"answer {n}"}]}})  # fmt: skip
        if n % 4 == 0:
            records.append({"type": "turn_ended", "status": "aborted" if n % 8 == 0 else "success"})
    return _write(path, records)


WRITERS: dict[str, Callable[[Path, int, str], Path]] = {
    "copilot": copilot_session,
    "qwen": qwen_session,
    "gemini": gemini_session,
    "cursor": cursor_session,
}
