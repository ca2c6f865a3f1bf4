"""What kind of tool a call is (``ToolBlock.kind``), one table for every agent.

Names are matched case-insensitively. MCP tools are recognised by their shape whatever
the agent: Claude's ``mcp__<server>__<tool>`` and the ``<server>.<tool>`` names Codex
(and others) record. Listing a directory (``ls``, ``list``, ``list_directory``) is
``search``: it finds files, like ``glob``; ``read`` is reading a file's content.
"""

from __future__ import annotations

from typing import Any

from hangar.model import ToolBlock

_KINDS = {
    # shell
    "bash": "shell", "shell": "shell", "shell_command": "shell", "exec_command": "shell",
    "write_stdin": "shell", "local_shell": "shell", "run_shell_command": "shell",
    "execute_bash": "shell", "run_command": "shell",
    # patch and edit
    "apply_patch": "patch", "patch": "patch",
    "edit": "edit", "multiedit": "edit", "write": "edit", "notebookedit": "edit",
    "fs_write": "edit",
    # read
    "read": "read", "read_file": "read", "view_image": "read",
    # search
    "glob": "search", "grep": "search", "search": "search", "ls": "search", "list": "search",
    "list_directory": "search",
    # web
    "web_search": "web", "websearch": "web", "webfetch": "web", "web_fetch": "web",
    "fetch": "web",
    # sub-agents
    "task": "subagent", "agent": "subagent",
    # plans and checklists
    "update_plan": "plan", "todowrite": "plan", "exitplanmode": "plan", "checklist": "plan",
    "write_todos": "plan",
}  # fmt: skip


def tool_kind(name: str) -> str | None:
    """A coarse display category for a tool name (see ``ToolBlock.kind``), ``None`` when
    the name is not known."""
    if name.startswith("mcp__") or "." in name:
        return "mcp"
    return _KINDS.get(name.lower())


def running_tool(call_id: str, name: str | None, tool_input: Any) -> ToolBlock:
    """The block of a tool call whose result has not been read yet (``tool`` when the
    record names no tool)."""
    name = name or "tool"
    return ToolBlock(call_id, name, tool_input, status="running", kind=tool_kind(name))
