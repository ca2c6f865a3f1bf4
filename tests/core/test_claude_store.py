"""Claude Code sessions: turns, merged API messages, hidden lines, titles, sub-agents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .helpers import line, parse_file, store

SESSION = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"


def chat(kind: str, uuid: str, content: Any, **extra: Any) -> bytes:
    record: dict[str, Any] = {
        "type": kind, "uuid": uuid, "sessionId": SESSION, "cwd": "/w/app",
        "isSidechain": False, "timestamp": f"2026-11-30T00:00:{len(uuid):02d}Z",
    }  # fmt: skip
    if kind == "assistant":
        message_id = extra.pop("message_id", "m-" + uuid)
        record["message"] = {"id": message_id, "role": "assistant", "model": "claude-x",
                             "content": content, **extra.pop("message", {})}  # fmt: skip
    else:
        record["message"] = {"role": "user", "content": content}
    record.update(extra)
    return line(record)


def write(folder: Path, *lines: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SESSION}.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def todo(items: list[dict[str, Any]], tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "TodoWrite", "input": {"todos": items}}


def test_turns_merge_split_api_messages_and_hide_meta(tmp_path: Path) -> None:
    """One API message split over lines is one reply; meta, caveats and command output are
    hidden; slash commands read `/cmd args`; non-chat lines are counted."""
    path = write(
        tmp_path,
        chat("user", "u0", "<local-command-caveat>Caveat: …</local-command-caveat>", isMeta=True),
        chat("user", "u1", "<command-name>/review</command-name><command-args>pr 7</command-args>"),
        chat("user", "u1b", "<local-command-stdout>ok</local-command-stdout>"),
        chat("user", "u2", "Fix the bug"),
        chat("assistant", "a1", [{"type": "thinking", "thinking": "hmm", "signature": "s"}],
             message_id="m1"),
        chat("assistant", "a2", [{"type": "redacted_thinking", "data": "xx"}], message_id="m1"),
        chat("assistant", "a3", [{"type": "tool_use", "id": "t1", "name": "Bash",
             "input": {"command": "ls"}}], message_id="m1",
             message={"usage": {"input_tokens": 5, "output_tokens": 7}}),
        chat("user", "r1", [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py",
             "is_error": False}], toolUseResult={"stdout": "a.py"}),
        chat("assistant", "a4", [{"type": "text", "text": "Fixed."}], message_id="m2"),
        line({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}}),
        line({"type": "queue-operation", "operation": "enqueue"}),
    )  # fmt: skip
    messages, summary = parse_file("claude", path)
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "/review pr 7"), ("user", "Fix the bug"), ("assistant", "Fixed.")]  # fmt: skip
    reply = messages[2]
    assert [b["type"] for b in reply["blocks"]] == ["thinking", "thinking", "tool", "text"]
    assert reply["blocks"][1]["redacted"] is True
    assert reply["blocks"][2]["output"] == "a.py"
    assert reply["usage"] == {"inputTokens": 5, "outputTokens": 7}
    assert summary["skipped"]["file-history-snapshot"] == 1
    assert summary["skipped"]["meta"] == 1


def test_title_precedence(tmp_path: Path) -> None:
    """Title: custom title > ai title > summary > first prompt (issue 4)."""
    base = [chat("user", "u1", "first prompt here")]
    extras = [
        line({"type": "summary", "summary": "From summary", "leafUuid": "u1"}),
        line({"type": "ai-title", "aiTitle": "From AI", "sessionId": SESSION}),
        line({"type": "custom-title", "customTitle": "Mine", "sessionId": SESSION}),
    ]
    expected = ["first prompt here", "From summary", "From AI", "Mine"]
    for count, title in enumerate(expected):
        folder = tmp_path / str(count)
        path = write(folder, *base, *extras[:count])
        assert parse_file("claude", path)[1]["title"] == title
        described = store("claude", tmp_path).describe(path)
        assert described is not None and described.title == title
        assert described.workspace_path == "/w/app"


def test_todowrite_shapes(tmp_path: Path) -> None:
    """CL: TodoWrite current {content,status,activeForm} and old {id,content,status,priority}
    shapes become checklist blocks (source claude.TodoWrite)."""
    path = write(
        tmp_path,
        chat("user", "u1", "plan"),
        chat("assistant", "a1", [todo([{"content": "Write", "status": "in_progress",
             "activeForm": "Writing"}], "t1")]),
        chat("user", "u2", "more"),
        chat("assistant", "a2", [todo([{"id": "1", "content": "Old", "status": "pending",
             "priority": "high"}], "t2")]),
    )  # fmt: skip
    messages, summary = parse_file("claude", path)
    first = messages[1]["blocks"][1]
    assert first == {"type": "checklist", "source": "claude.TodoWrite",
                     "items": [{"content": "Write", "status": "in_progress"}]}  # fmt: skip
    old = messages[3]["blocks"][1]["items"]
    assert old == [{"content": "Old", "status": "pending", "priority": "high"}]
    assert messages[3]["blocks"][0]["name"] == "TodoWrite"
    assert list(summary["checklist"]["items"]) == old


def test_subagent_attached_to_its_tool_call(tmp_path: Path) -> None:
    """Sub-agent transcripts become ToolBlock.children of the call that started them; their
    lines and checklists never leak into the parent, and they are not listed as tasks."""
    project = tmp_path / "projects" / "-w-app"
    path = write(
        project,
        chat("user", "u1", "delegate"),
        chat("assistant", "a1", [{"type": "tool_use", "id": "task1", "name": "Task",
             "input": {"prompt": "search", "subagent_type": "general"}}]),
        chat("assistant", "s1", [{"type": "text", "text": "sidechain noise"}], isSidechain=True),
        chat("user", "r1", [{"type": "tool_result", "tool_use_id": "task1", "content": "found"}],
             toolUseResult={"agentId": "abc", "totalDurationMs": 1200, "content": "found"}),
    )  # fmt: skip
    child_dir = project / SESSION / "subagents"
    child_dir.mkdir(parents=True)
    (child_dir / "agent-abc.jsonl").write_bytes(
        chat("user", "c1", "search", isSidechain=True, agentId="abc")
        + chat("assistant", "c2", [todo([{"content": "child", "status": "pending"}], "ct")],
               isSidechain=True, agentId="abc")
    )  # fmt: skip
    (project / "agent-legacy.jsonl").write_bytes(chat("user", "l1", "x", isSidechain=True))
    messages, summary = parse_file("claude", path)
    assert len(messages) == 2 and "sidechain noise" not in str(messages)
    task = messages[1]["blocks"][0]
    assert task["durationMs"] == 1200
    assert [m["role"] for m in task["children"]] == ["user", "assistant"]
    assert summary["checklist"] is None
    sources = list(store("claude", tmp_path).discover())
    parents = [s for s in sources if s.parent_session_id is None]
    assert [s.session_id for s in parents] == [SESSION]
