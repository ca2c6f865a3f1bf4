"""Transcript HTML for every block type, from the model's own JSON (defaults omitted)."""

from __future__ import annotations

import msgspec

from hangar.hub.pages.rendering import relative_time, render
from hangar.model.checklist import ChecklistItem
from hangar.model.messages import (
    ChecklistBlock,
    CompactionBlock,
    FileChange,
    FileChangesBlock,
    ImageBlock,
    Message,
    PlanBlock,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
    UnknownBlock,
)

EVIL = "<script>alert(1)</script>"


def page_html(*messages: Message) -> str:
    result = {"totalMessages": len(messages), "hasMore": False, "messages": []}
    return render(
        "_transcript_page.html",
        result=result,
        messages=msgspec.to_builtins(list(messages)),
        first=0,
        last=len(messages) - 1,
        task={"title": "t"},
    )


def test_every_block_type_renders_and_user_content_is_escaped() -> None:
    assistant = Message(
        index=1,
        id="a",
        role="assistant",
        turn_id="t1",
        content="done",
        blocks=[
            ThinkingBlock(text="pondering " + EVIL),
            ToolBlock(
                tool_use_id="x",
                name="Bash",
                input={"command": ["ls", "-la"]},
                output="out " + EVIL,
                is_error=True,
                truncated=True,
            ),
            PlanBlock(text="1. do it"),
            ChecklistBlock(source="claude.TodoWrite", items=[ChecklistItem("step", "pending")]),
            FileChangesBlock(
                files=[FileChange(path="a.py"), FileChange(path="b.py", additions=3, deletions=1)]
            ),
            ImageBlock(path="/tmp/shot.png"),
            ImageBlock(render_payload="data:image/png;base64,AAAA"),
            ImageBlock(render_payload="javascript:alert(1)"),
            CompactionBlock(),
            UnknownBlock(record_type="mystery", raw={"k": EVIL}),
            TextBlock(text="**bold** " + EVIL),
        ],
    )
    user = Message(index=0, id="u", role="user", turn_id="t1", content="hi " + EVIL)
    html = page_html(user, assistant)
    assert "<script>" not in html
    assert html.count("&lt;script&gt;") >= 5
    assert '<code class="cmd">ls -la</code>' in html
    assert "tool-error" in html and "Output shortened" in html
    assert "2 files changed" in html and "+3" in html and "−1" in html
    assert 'src="data:image/png;base64,AAAA"' in html
    assert 'src="javascript:' not in html  # only data:image payloads become <img>
    assert "/tmp/shot.png" in html
    assert "Context compacted" in html
    assert "<strong>bold</strong>" in html
    assert 'id="msg-0"' in html and 'id="msg-1"' in html


def test_message_links_and_a_sub_agents_messages() -> None:
    """RW-229: a user message with a clientUserMessageId links by it; others by index. A
    sub-agent's messages (their own indexes, inside the spawning call) take no page id or
    link, so ``#msg-0`` names the task's first message only."""
    child = Message(index=0, id="c", role="user", turn_id="s1", content="sub-task")
    spawn = ToolBlock(tool_use_id="x", name="spawn_agent", input={}, children=[child])
    sent = Message(
        index=0, id="u", role="user", turn_id="t1", content="go", client_user_message_id="c/1 x"
    )
    typed = Message(index=1, id="v", role="user", turn_id="t2", content="no id")
    reply = Message(index=2, id="a", role="assistant", turn_id="t2", blocks=[spawn])
    html = page_html(sent, typed, reply)
    assert 'data-client-id="c/1 x"' in html
    assert 'href="#user-c/1%20x"' in html
    assert 'href="#msg-1"' in html and 'href="#msg-2"' in html
    assert html.count('id="msg-0"') == 1 and html.count('href="#msg-0"') == 0
    assert "sub-task" in html


def test_relative_time() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert relative_time("2026-11-30T11:59:30Z", now) == "just now"
    assert relative_time("2026-11-30T11:55:00Z", now) == "5m ago"
    assert relative_time("2026-11-30T09:00:00Z", now) == "3h ago"
    assert relative_time("2026-11-20T12:00:00Z", now) == "10d ago"
    assert relative_time("not a time", now) == "not a time"
    assert relative_time(None, now) == ""
