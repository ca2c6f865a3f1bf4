"""Copilot CLI, Qwen Code and Cursor agent: append-only event logs read incrementally."""

from __future__ import annotations

import json
from pathlib import Path

from hangar.agents.copilot import CopilotProjector, CopilotStore
from hangar.agents.cursor import CursorProjector, CursorStore
from hangar.agents.qwen import QwenProjector, QwenStore
from hangar.model import ToolBlock

from .homes import copilot_home, cursor_home, qwen_home


def _feed(projector: CopilotProjector | QwenProjector | CursorProjector, path: Path) -> None:
    for line in path.read_bytes().split(b"\n"):
        projector.feed(line)


def test_copilot_layouts_and_results(public_fixtures: Path, tmp_path: Path) -> None:
    store = CopilotStore(copilot_home(public_fixtures, tmp_path / "copilot"))
    sources = {s.session_id: s for s in store.discover()}
    assert set(sources) == {
        "aaaabbbb-1111-2222-3333-ccccddddeeee",
        "large",
        "schema_drift",
        "small",
    }
    nested = sources["aaaabbbb-1111-2222-3333-ccccddddeeee"]
    assert nested.workspace_path == "/tmp/project"
    projector = store.new_projector(nested)
    _feed(projector, nested.path)
    messages = projector.take().messages
    assert [m.role for m in messages] == ["user", "assistant"]
    tool = messages[1].blocks[0] if messages[1].blocks else None
    assert isinstance(tool, ToolBlock) and (tool.output, tool.status) == ("file1\nfile2\n", "done")
    assert messages[1].content == "The directory contains file1 and file2."


def test_copilot_subagent_events_become_children() -> None:
    events = [
        {"type": "user.message", "id": "e1", "data": {"content": "Delegate"}},
        {
            "type": "assistant.message",
            "id": "e2",
            "data": {
                "messageId": "m1",
                "content": "",
                "toolRequests": [{"toolCallId": "task1", "name": "task", "arguments": {}}],
            },
        },
        {"type": "subagent.started", "id": "e3", "data": {"toolCallId": "task1"}},
        {
            "type": "assistant.message",
            "id": "e4",
            "data": {
                "parentToolCallId": "task1",
                "content": "child says hi",
                "toolRequests": [
                    {"toolCallId": "inner", "name": "bash", "arguments": '{"command": "ls"}'}
                ],
            },
        },
        {
            "type": "tool.execution_complete",
            "id": "e5",
            "data": {
                "parentToolCallId": "task1",
                "toolCallId": "inner",
                "success": False,
                "result": {"content": "boom"},
            },
        },
        {
            "type": "tool.execution_complete",
            "id": "e6",
            "data": {"toolCallId": "task1", "success": True, "result": {"content": "child done"}},
        },
        {"type": "assistant.message", "id": "e7", "data": {"content": "All done."}},
    ]
    projector = CopilotProjector()
    first = None
    for n, event in enumerate(events):
        projector.feed(json.dumps(event).encode())
        if n == 3:
            first = projector.take()
    assert first is not None
    rest = projector.take()
    assert rest.start == 1
    reply = rest.messages[0]
    task = reply.blocks[0] if reply.blocks else None
    assert isinstance(task, ToolBlock) and task.kind == "subagent" and task.children
    child = task.children[0]
    inner = [b for b in child.blocks or [] if isinstance(b, ToolBlock)]
    assert child.content == "child says hi"
    assert [(t.tool_use_id, t.status, t.input) for t in inner] == [
        ("inner", "failed", {"command": "ls"})
    ]
    assert reply.content == "All done." and task.output == "child done"


def test_qwen_rewind_glue_and_titles(public_fixtures: Path, tmp_path: Path) -> None:
    store = QwenStore(qwen_home(public_fixtures, tmp_path / "qwen"))
    sources = {s.session_id: s for s in store.discover()}
    rewound = sources["019f0000-0000-7000-8000-000000000004"]
    projector = store.new_projector(rewound)
    _feed(projector, rewound.path)
    messages = projector.take().messages
    texts = [m.content for m in messages]
    assert "Discarded branch answer." not in texts
    assert texts == [
        "Begin the active-chain fixture.",
        "Continue from the rewound branch.",
        "Active branch answer.",
    ]
    summary = projector.summary()
    assert summary.title == "Active branch title"
    assert summary.workspace_path == "/tmp/as-qwen-fixture/new-project"
    glued = sources["019f0000-0000-7000-8000-000000000005"]
    projector = store.new_projector(glued)
    _feed(projector, glued.path)
    assert [m.role for m in projector.take().messages] == ["user", "assistant"]
    # The hook context part is not the user's request.
    first = sources["019f0000-0000-7000-8000-000000000001"]
    projector = store.new_projector(first)
    _feed(projector, first.path)
    assert projector.take().messages[0].content == "Inspect the synthetic fixture."


def test_qwen_archived_sessions(tmp_path: Path) -> None:
    archive = tmp_path / "qwen" / "projects" / "p" / "chats" / "archive"
    archive.mkdir(parents=True)
    (archive / "abc.jsonl").write_text(json.dumps({"type": "user", "cwd": "/w"}) + "\n")
    from hangar.agents.homes import AgentHome

    [source] = list(QwenStore(AgentHome("qwen", tmp_path / "qwen", None)).discover())
    assert source.archived and source.workspace_path == "/w"


def test_cursor_subagents_are_children_and_results_pair(
    public_fixtures: Path, tmp_path: Path
) -> None:
    store = CursorStore(cursor_home(public_fixtures, tmp_path / "cursor"))
    sources = {s.session_id: s for s in store.discover()}
    assert sources["child"].parent_session_id == "parent"
    assert sources["parent"].parent_session_id is None
    parent = store.new_projector(sources["parent"])
    _feed(parent, sources["parent"].path)
    [agent] = [
        b for m in parent.take().messages for b in m.blocks or [] if isinstance(b, ToolBlock)
    ]
    assert agent.kind == "subagent" and agent.children is not None
    assert [m.content for m in agent.children] == ["List files", "file1.txt\nfile2.txt"]
    large = sources["large"]
    projector = store.new_projector(large)
    _feed(projector, large.path)
    messages = projector.take().messages
    tools = [b for m in messages for b in m.blocks or [] if isinstance(b, ToolBlock)]
    assert [(t.name, t.output) for t in tools] == [
        ("Bash", "file1.txt\nfile2.txt"),
        ("Read", "hello world"),
    ]
    wrapped = CursorProjector()
    wrapped.feed(
        json.dumps(
            {
                "role": "user",
                "message": {
                    "content": [
                        {
                            "type": "text",
                            "text": "<context>x</context>\n<user_query>\nDo it\n</user_query>",
                        }
                    ]
                },
            }
        ).encode()
    )
    assert wrapped.take().messages[0].content == "Do it"
