"""Display limits for tool output shared by every store.

Tool output is kept for display only up to :data:`OUTPUT_CAP_CHARS` (the last part, which
holds exit status and errors); the block is then marked ``truncated`` and the full text stays
in the agent's own file. Tool *inputs*, checklist and plan arguments and image payloads are
never shortened.
"""

from __future__ import annotations

import json
from typing import Any

OUTPUT_CAP_CHARS = 64 * 1024

_KINDS = {
    "shell": "shell",
    "shell_command": "shell",
    "exec_command": "shell",
    "write_stdin": "shell",
    "local_shell": "shell",
    "bash": "shell",
    "apply_patch": "patch",
    "edit": "edit",
    "multiedit": "edit",
    "write": "edit",
    "notebookedit": "edit",
    "read": "read",
    "view_image": "read",
    "glob": "search",
    "grep": "search",
    "ls": "search",
    "web_search": "web",
    "websearch": "web",
    "webfetch": "web",
    "task": "subagent",
    "agent": "subagent",
    "update_plan": "plan",
    "todowrite": "plan",
    "exitplanmode": "plan",
}


def tool_kind(name: str) -> str | None:
    """A coarse display category for a tool name (see ``ToolBlock.kind``)."""
    if name.startswith("mcp__") or "." in name:
        return "mcp"
    return _KINDS.get(name.lower())


def cap_output(text: str) -> tuple[str, bool]:
    """``(shown, truncated)``: the last :data:`OUTPUT_CAP_CHARS` characters of ``text``."""
    if len(text) <= OUTPUT_CAP_CHARS:
        return text, False
    return text[-OUTPUT_CAP_CHARS:], True


def content_text(value: Any) -> str:
    """Text of a tool result that may be a string, a list of content parts or an object."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts: list[str] = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
                elif part.get("type") in {"image", "input_image"}:
                    parts.append("[image]")
        return "\n".join(parts)
    if isinstance(value, dict):
        for key in ("content", "output", "text", "stdout"):
            if key in value:
                return content_text(value[key])
    return json.dumps(value, ensure_ascii=False)
