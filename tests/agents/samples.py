"""Sample sessions written in shapes observed from the real CLIs (OpenCode 1.18.33 and cn
1.5.47, see the shared reference), for stores no public fixture covers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hangar.agents.homes import AgentHome

from .homes import continue_home
from .opencode_db import OpenCodeWriter, todo


def cn_user(text: str) -> dict[str, Any]:
    return {"message": {"role": "user", "content": text}, "contextItems": [], "editorState": text}


def _parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return None


def cn_call(
    call_id: str,
    name: str,
    arguments: str,
    status: str = "done",
    output: str = "",
    state_arguments: str | None = None,
) -> dict[str, Any]:
    """An assistant history item with one tool call and its state."""
    function = {"name": name, "arguments": arguments}
    state_function = {
        "name": name,
        "arguments": arguments if state_arguments is None else state_arguments,
    }
    return {
        "message": {
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": call_id, "type": "function", "function": function}],
            "usage": {
                "prompt_tokens": 11,
                "completion_tokens": 7,
                "total_tokens": 18,
                "model": "fake-model",
                "cost_cents": 0,
            },
        },
        "contextItems": [],
        "toolCallStates": [
            {
                "toolCallId": call_id,
                "toolCall": {"id": call_id, "type": "function", "function": state_function},
                "status": status,
                "parsedArgs": _parsed(arguments),
                "output": [
                    {
                        "content": output,
                        "name": "Tool Result",
                        "description": "Tool execution result",
                    }
                ],
            }
        ],
    }


def cn_checklist(
    call_id: str, markdown: str, status: str = "done", state_arguments: str | None = None
) -> dict[str, Any]:
    args = json.dumps({"checklist": markdown})
    return cn_call(
        call_id, "Checklist", args, status, f"Task list status:\n{markdown}", state_arguments
    )


def cn_reply(text: str) -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": text}, "contextItems": []}


def cn_session(
    session_id: str, history: list[dict[str, Any]], workspace: str = "/home/user/demo"
) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "title": "Untitled Session",
        "workspaceDirectory": workspace,
        "history": history,
        "usage": {"totalCost": 0, "promptTokens": 22, "completionTokens": 14},
    }


def continue_sample_home(root: Path, workspace: str = "/home/user/demo") -> AgentHome:
    history = [
        cn_user("Plan the work"),
        cn_call("call_1", "Bash", json.dumps({"command": "ls"}), output="README.md\n"),
        cn_checklist("call_2", "- [x] Reproduce the bug\n- [ ] Write the fix"),
        cn_reply("Plan recorded."),
    ]
    sid = "5f0c6a52-0000-4000-8000-000000000001"
    return continue_home(root, {sid: cn_session(sid, history, workspace)})


def opencode_sqlite_home(root: Path, directory: str = "/home/user/demo") -> AgentHome:
    """One session with a tool round trip, a todo list and a sub-agent with its own list."""
    db = OpenCodeWriter(root / "opencode.db")
    sid = db.session("Plan the work", directory=directory)
    user = db.user(sid, "Plan the work")
    step = db.assistant(sid, user, tokens={"input": 11, "output": 7})
    db.tool(sid, step, "bash", {"command": "ls"}, output="README.md\n")
    db.todowrite(sid, step, [todo("Reproduce the bug", "completed"), todo("Write the fix")])
    child = db.session("Sub-agent", parent=sid, directory=directory)
    db.tool(
        sid,
        step,
        "task",
        {"prompt": "Investigate", "description": "Look around"},
        output="Found it.",
        metadata={"sessionId": child},
    )
    child_user = db.user(child, "Investigate")
    child_step = db.assistant(child, child_user)
    db.todowrite(child, child_step, [todo("Child step one")])
    db.text(child, child_step, "Found it.")
    final = db.assistant(sid, user)
    db.text(sid, final, "Plan recorded.")
    db.close()
    return AgentHome("opencode", root, None)
