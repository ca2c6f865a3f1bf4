"""Writers of small real-format agent sessions (Claude Code JSONL, Codex rollouts) for tests."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any


def claude_session(
    home: Path, session_id: str, cwd: str, turns: list[dict[str, Any]], start: int = 0
) -> Path:
    """Write ``projects/<slug>/<session_id>.jsonl`` under a Claude home.

    Each turn: ``{"user": text, "assistant": text, "command": optional shell command,
    "output": optional tool output}``.
    """
    slug = "".join(c if c.isalnum() else "-" for c in cwd)
    path = home / "projects" / slug / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [claude_lines(session_id, cwd, turn, start + n) for n, turn in enumerate(turns)]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def claude_lines(session_id: str, cwd: str, turn: dict[str, Any], n: int) -> str:
    """The JSONL lines of one Claude turn (ending with a newline)."""
    stamp = f"2026-11-0{1 + n // 1000 % 9}T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    base = {"sessionId": session_id, "cwd": cwd, "timestamp": stamp, "userType": "external"}
    user_id, parent = f"u{n}-{uuid.uuid4().hex[:8]}", None
    out = [
        {
            **base,
            "type": "user",
            "uuid": user_id,
            "parentUuid": parent,
            "message": {"role": "user", "content": turn["user"]},
        }
    ]
    parent = user_id
    if turn.get("command"):
        tool_id = f"toolu_{n}_{uuid.uuid4().hex[:6]}"
        call_id = f"a{n}c-{uuid.uuid4().hex[:8]}"
        out.append(
            {
                **base,
                "type": "assistant",
                "uuid": call_id,
                "parentUuid": parent,
                "requestId": f"req{n}a",
                "message": {
                    "id": f"msg{n}a",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Bash",
                            "input": {"command": turn["command"]},
                        }
                    ],
                    "stop_reason": "tool_use",
                },
            }
        )
        result_id = f"r{n}-{uuid.uuid4().hex[:8]}"
        out.append(
            {
                **base,
                "type": "user",
                "uuid": result_id,
                "parentUuid": call_id,
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tool_id,
                            "content": turn.get("output", ""),
                        }
                    ],
                },
            }
        )
        parent = result_id
    out.append(
        {
            **base,
            "type": "assistant",
            "uuid": f"a{n}-{uuid.uuid4().hex[:8]}",
            "parentUuid": parent,
            "requestId": f"req{n}b",
            "message": {
                "id": f"msg{n}b",
                "role": "assistant",
                "model": "claude-test",
                "content": [{"type": "text", "text": turn["assistant"]}],
                "stop_reason": "end_turn",
            },
        }
    )
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in out)
