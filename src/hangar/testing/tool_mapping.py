"""Map a scenario's tool call *by role* onto the tool a request actually offers.

Each CLI names and shapes its tools differently; a scenario says ``shell: <cmd>`` or
``plan: [...]`` once and this module picks the offered tool and fills its arguments, reading
the tool's JSON schema for the argument names (``cmd`` for codex's ``exec_command``,
``command`` for ``Bash``/``bash``/Hermes's ``terminal``, ``filePath`` vs ``file_path``, …).

Plans are neutral items ``{content, status}`` rendered per tool: ``update_plan``
``{plan: [{step, status}]}``, ``TodoWrite`` ``{todos: [{content, status, activeForm}]}``,
``todowrite`` ``{todos: [{content, status, priority}]}``, ``Checklist`` ``{checklist:
"- [x] …\\n- [ ] …"}``. File roles without a matching tool fall back to the shell tool.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hangar.testing.scenarios import PlanItem, ToolCall

SHELL_TOOLS = ("exec_command", "Bash", "bash", "shell_command", "shell", "terminal")
PLAN_TOOLS = ("update_plan", "TodoWrite", "todowrite", "Checklist")
FILE_TOOLS = {"write": ("Write", "write"), "edit": ("Edit", "edit"), "read": ("Read", "read")}
PATH_KEYS = ("file_path", "filePath", "path")


@dataclass(frozen=True)
class OfferedTool:
    """A tool from the request's ``tools`` list: its name and JSON schema for arguments."""

    name: str
    schema: Mapping[str, Any]

    @property
    def properties(self) -> Mapping[str, Any]:
        props = self.schema.get("properties")
        return props if isinstance(props, Mapping) else {}


class NoToolForRole(LookupError):
    """The request offers no tool that can play the role (nor a shell to fall back on)."""

    def __init__(self, role: str, offered: Sequence[OfferedTool]) -> None:
        names = ", ".join(tool.name for tool in offered) or "none"
        super().__init__(f"fake model: no {role} tool offered (tools: {names})")


def _find(offered: Sequence[OfferedTool], names: Sequence[str]) -> OfferedTool | None:
    by_name = {tool.name: tool for tool in offered}
    return next((by_name[name] for name in names if name in by_name), None)


def _key(tool: OfferedTool, candidates: Sequence[str]) -> str:
    """The first candidate argument name the schema declares (else the first candidate)."""
    return next((key for key in candidates if key in tool.properties), candidates[0])


def shell_call(command: str, offered: Sequence[OfferedTool]) -> tuple[str, dict[str, Any]]:
    tool = _find(offered, SHELL_TOOLS)
    if tool is None:
        raise NoToolForRole("shell", offered)
    key = _key(tool, ("cmd", "command"))
    value: Any = command
    if tool.properties.get(key, {}).get("type") == "array":
        value = ["bash", "-lc", command]  # the older codex `shell` tool takes an argv
    args: dict[str, Any] = {key: value}
    for name in tool.schema.get("required", ()):
        if name not in args and tool.properties.get(name, {}).get("type") == "string":
            # e.g. opencode's bash requires a short `description` of the command
            args[name] = f"Run {command[:60]}"
    return tool.name, args


def _status(item: PlanItem, allowed: Sequence[str]) -> str:
    if item.status in allowed:
        return item.status
    return "completed" if item.status == "cancelled" else "pending"


def plan_call(
    items: Sequence[PlanItem], explanation: str | None, offered: Sequence[OfferedTool]
) -> tuple[str, dict[str, Any]]:
    tool = _find(offered, PLAN_TOOLS)
    if tool is None:
        raise NoToolForRole("plan", offered)
    basic = ("pending", "in_progress", "completed")
    if tool.name == "update_plan":
        args: dict[str, Any] = {
            "plan": [{"step": i.content, "status": _status(i, basic)} for i in items]
        }
        if explanation:
            args["explanation"] = explanation
        return tool.name, args
    if tool.name == "TodoWrite":
        todos = [
            {
                "content": i.content,
                "status": _status(i, basic),
                "activeForm": i.active_form or i.content,
            }
            for i in items
        ]
        return tool.name, {"todos": todos}
    if tool.name == "todowrite":
        todos = [{"content": i.content, "status": i.status, "priority": i.priority} for i in items]
        return tool.name, {"todos": todos}
    lines = [f"- [{'x' if i.status == 'completed' else ' '}] {i.content}" for i in items]
    return tool.name, {"checklist": "\n".join(lines)}


def _file_fallback(role: str, args: Mapping[str, Any]) -> str:
    path = shlex.quote(str(args["path"]))
    if role == "read":
        return f"cat {path}"
    if role == "write":
        folder = shlex.quote(posixpath.dirname(str(args["path"])) or ".")
        return f"mkdir -p {folder} && printf '%s' {shlex.quote(str(args['content']))} > {path}"
    script = (
        "import sys,pathlib;p=pathlib.Path(sys.argv[1]);"
        "p.write_text(p.read_text().replace(sys.argv[2],sys.argv[3],1))"
    )
    old, new = shlex.quote(str(args["old"])), shlex.quote(str(args["new"]))
    return f"python3 -c {shlex.quote(script)} {path} {old} {new}"


def file_call(
    role: str, args: Mapping[str, Any], offered: Sequence[OfferedTool], cwd: str | None
) -> tuple[str, dict[str, Any]]:
    tool = _find(offered, FILE_TOOLS[role])
    if tool is None:
        return shell_call(_file_fallback(role, args), offered)
    path = str(args["path"])
    if cwd and not posixpath.isabs(path):
        path = posixpath.join(cwd, path)  # claude's file tools insist on absolute paths
    out: dict[str, Any] = {_key(tool, PATH_KEYS): path}
    if role == "write":
        out[_key(tool, ("content", "contents"))] = args["content"]
    elif role == "edit":
        out[_key(tool, ("old_string", "oldString", "old_str"))] = args["old"]
        out[_key(tool, ("new_string", "newString", "new_str"))] = args["new"]
    return tool.name, out


def resolve_call(
    call: ToolCall, offered: Sequence[OfferedTool], cwd: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The ``(tool name, arguments)`` that plays ``call`` with the offered tools.

    Raises :class:`NoToolForRole` when nothing offered can play it.
    """
    if call.role == "shell":
        return shell_call(str(call.args["command"]), offered)
    if call.role == "plan":
        return plan_call(call.plan, call.args.get("explanation"), offered)
    if call.role == "call":
        by_name = {tool.name for tool in offered}
        for name, arguments in call.args.items():
            if name in by_name:
                return name, dict(arguments)
        raise NoToolForRole("call", offered)
    if call.role == "forced_call":
        return str(call.args["tool"]), dict(call.args["arguments"])
    return file_call(call.role, call.args, offered, cwd)
