"""``runtime.tasks.run_messages`` over Claude Code session files written in Claude's own
format (generated here), read by the real executor through its JSON door: what a growing
session yields, turn by turn, and that its keys come from the agent's ids alone."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hangar.executor.service import Executor
from hub.sessions import ClaudeSession  # tests/hub, a sibling package

CWD = "/srv/projects/adopt"


@contextmanager
def executor_of_home() -> Iterator[Executor]:
    executor = Executor.open()
    try:
        yield executor
    finally:
        executor.close()


def page(executor: Executor, task: str, start: int = 0, limit: int = 500) -> dict[str, Any]:
    payload = {"localTaskId": task, "fromIndex": start, "limit": limit}
    return executor.handle("runtime.tasks.run_messages", payload)


def the_task(executor: Executor) -> str:
    [task] = executor.handle("runtime.tasks.list")["tasks"]
    return str(task["localTaskId"])


def running_tool(session: ClaudeSession, name: str, tool_input: dict[str, Any]) -> None:
    """An assistant line that calls a tool whose result is not written yet."""
    session._append(
        "assistant",
        {
            "id": f"msg_{session.lines}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "tool_use", "id": "toolu_live", "name": name, "input": tool_input}
            ],
            "stop_reason": "tool_use",
        },
    )


def test_a_streaming_turn_waits_for_its_final_reply(isolated_home: Path) -> None:
    """LR-170: while a turn runs, its tool call is reported and its reply is not; once
    it settles, the same keys come back plus the result and the final reply; the next read
    starts at the last turn (``nextIndex``), so nothing is missed or doubled."""
    session = ClaudeSession(isolated_home, "aaaaaaaa-1111-4111-8111-000000000001", CWD)
    session.user("Fix the build")
    running_tool(session, "Bash", {"command": "make"})
    with executor_of_home() as executor:
        task = the_task(executor)
        first = page(executor, task)
        assert [(m["type"], m.get("tool")) for m in first["messages"]] == [
            ("user_input", None),
            ("tool_use", "Bash"),
        ]
        assert (first["nextIndex"], first["firstRequest"]) == (0, "Fix the build")
        session._append(
            "user",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_live", "content": "ok"}],
            },
        )
        session.assistant("The build passes.")
        second = page(executor, task, first["nextIndex"])
    keys = [m["sourceKey"] for m in second["messages"]]
    assert keys[:2] == [m["sourceKey"] for m in first["messages"]]
    assert [(m["type"], m.get("output") or m.get("content", "")) for m in second["messages"]] == [
        ("user_input", "Fix the build"),
        ("tool_use", ""),
        ("tool_result", "ok"),
        ("final", "The build passes."),
    ]
    assert len(set(keys)) == 4
    assert all(
        m["input"]["turnKey"] == second["messages"][0]["input"]["turnKey"]
        for m in second["messages"]
    )


def test_slash_commands_and_turns_without_input(isolated_home: Path) -> None:
    """LR-164, LR-165, LR-167: a bare slash command is no input and its turn's reply is plain
    text; a command with arguments is commentable input, so its reply is final."""
    session = ClaudeSession(isolated_home, "aaaaaaaa-1111-4111-8111-000000000002", CWD)
    session.user("<command-name>/compact</command-name>").assistant("Compacted.")
    session.user("<command-name>/review</command-name><command-args>main</command-args>")
    session.assistant("Reviewed main.")
    with executor_of_home() as executor:
        messages = page(executor, the_task(executor))["messages"]
    assert [(m["type"], m.get("content", "")) for m in messages] == [
        ("text", "Compacted."),
        ("user_input", "/review main"),
        ("final", "Reviewed main."),
    ]
    assert messages[1]["input"]["command"] is True
    assert messages[1]["input"]["commentable"] is True


def test_keys_come_from_the_agent_ids_not_from_hangar(
    isolated_home: Path, hangar_home: Path
) -> None:
    """LR-160, LR-161: an executor that indexes the session afresh (a new localTaskId) maps it
    to exactly the same source keys; pages of whole turns add up to one full read, and the
    checklist rides on the call that wrote it."""
    session = ClaudeSession(isolated_home, "aaaaaaaa-1111-4111-8111-000000000003", CWD)
    session.user("Plan it").todos([("One", "in_progress"), ("Two", "pending")])
    session.assistant("Planned.")
    session.turns(12)
    with executor_of_home() as executor:
        task = the_task(executor)
        whole = page(executor, task)
        paged: list[dict[str, Any]] = []
        start, pages = 0, 0
        while True:
            part = page(executor, task, start, limit=5)
            paged += part["messages"]
            pages += 1
            if not part["hasMore"]:
                break
            start = part["nextIndex"]
    assert pages > 3 and paged == whole["messages"]
    todo = [
        m for m in whole["messages"] if m.get("tool") == "TodoWrite" and m["type"] == "tool_use"
    ]
    assert todo[0]["input"]["checklist"] == {
        "source": "claude.TodoWrite",
        "items": [
            {"content": "One", "status": "in_progress"},
            {"content": "Two", "status": "pending"},
        ],
    }
    shutil.rmtree(hangar_home)
    with executor_of_home() as fresh:
        again_task = the_task(fresh)
        again = page(fresh, again_task)
    assert again_task != task
    assert [m["sourceKey"] for m in again["messages"]] == [
        m["sourceKey"] for m in whole["messages"]
    ]
