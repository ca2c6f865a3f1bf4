"""Scenario roles rendered into each CLI's tool shapes (schemas as the CLIs send them)."""

from __future__ import annotations

from typing import Any

from hangar.testing.scenarios import PlanItem, ToolCall
from hangar.testing.tool_mapping import OfferedTool, resolve_call

ITEMS = (
    PlanItem("Read", "completed"),
    PlanItem("Fix", "in_progress", priority="high", active_form="Fixing"),
    PlanItem("Drop", "cancelled"),
)


def tool(name: str, **props: Any) -> OfferedTool:
    return OfferedTool(name, {"type": "object", "properties": props})


def plan(offered: list[OfferedTool]) -> tuple[str, dict[str, Any]]:
    return resolve_call(ToolCall("plan", {"explanation": "why"}, plan=ITEMS), offered)


def test_codex_update_plan() -> None:
    assert plan([tool("exec_command"), tool("update_plan")]) == (
        "update_plan",
        {
            "plan": [
                {"step": "Read", "status": "completed"},
                {"step": "Fix", "status": "in_progress"},
                {"step": "Drop", "status": "completed"},
            ],
            "explanation": "why",
        },
    )


def test_claude_todowrite() -> None:
    name, args = plan([tool("Bash"), tool("TodoWrite")])
    assert name == "TodoWrite"
    assert args["todos"][1] == {"content": "Fix", "status": "in_progress", "activeForm": "Fixing"}
    assert args["todos"][0]["activeForm"] == "Read"


def test_opencode_todowrite_keeps_cancelled_and_priority() -> None:
    name, args = plan([tool("bash"), tool("todowrite")])
    assert name == "todowrite"
    assert args["todos"][1:] == [
        {"content": "Fix", "status": "in_progress", "priority": "high"},
        {"content": "Drop", "status": "cancelled", "priority": "medium"},
    ]


def test_continue_checklist_is_markdown() -> None:
    assert plan([tool("Bash"), tool("Checklist")]) == (
        "Checklist",
        {"checklist": "- [x] Read\n- [ ] Fix\n- [ ] Drop"},
    )


def test_write_uses_the_file_tool_with_its_argument_names() -> None:
    call = ToolCall("write", {"path": "notes.md", "content": "hi"})
    offered = [tool("bash"), tool("write", filePath={}, content={})]
    assert resolve_call(call, offered, "/w") == (
        "write",
        {"filePath": "/w/notes.md", "content": "hi"},
    )
    offered = [tool("Write", file_path={}, content={})]
    assert resolve_call(call, offered, "/w")[1] == {"file_path": "/w/notes.md", "content": "hi"}


def test_edit_maps_old_and_new_names() -> None:
    call = ToolCall("edit", {"path": "/a", "old": "x", "new": "y"})
    offered = [tool("Edit", file_path={}, old_string={}, new_string={})]
    assert resolve_call(call, offered)[1] == {
        "file_path": "/a",
        "old_string": "x",
        "new_string": "y",
    }


def test_file_roles_fall_back_to_the_shell_tool() -> None:
    call = ToolCall("write", {"path": "d/n.md", "content": "it's"})
    name, args = resolve_call(call, [tool("exec_command", cmd={})])
    assert name == "exec_command"
    assert args == {"cmd": "mkdir -p d && printf '%s' 'it'\"'\"'s' > d/n.md"}


def test_array_command_schema_gets_an_argv() -> None:
    offered = [tool("shell", command={"type": "array"})]
    assert resolve_call(ToolCall("shell", {"command": "ls"}), offered)[1] == {
        "command": ["bash", "-lc", "ls"]
    }
