"""The Cursor transcript mapper over public Cursor transcripts (format, not our stand-in)."""

from __future__ import annotations

import json
from pathlib import Path

from hangar.localrun.providers.cursor_events import CursorTranscriptMapper
from hangar.localrun.providers.jsonl_follow import JsonlFollower
from hangar.model.run_messages import RunMessage


class Collect:
    def __init__(self) -> None:
        self.messages: list[RunMessage] = []

    def report(self, message: RunMessage) -> None:
        self.messages.append(message)


def mapped(path: Path) -> list[RunMessage]:
    sink = Collect()
    mapper = CursorTranscriptMapper(sink, "chat-1")
    for offset, record in JsonlFollower(path).read_located():
        mapper.feed(offset, record)
    mapper.close()
    return sink.messages


def test_turn_marker_makes_the_last_text_final(public_fixtures: Path) -> None:
    """LR-167, LR-170: only a text no tool call follows before `turn_ended` success is a
    final; Cursor's tool names are kept."""
    messages = mapped(public_fixtures / "cursor" / "agent-sessions" / "small.jsonl")
    assert [(m.type, m.tool, m.content) for m in messages] == [
        ("user_input", None, "List the files."),
        ("text", None, "Here are the files."),  # no marker: its turn never ended
        ("user_input", None, "Run ls."),
        ("text", None, "Running ls."),  # a tool call follows: not the reply
        ("tool_use", "Bash", ""),
    ]
    assert messages[4].input["input"] == {"command": "ls"}
    unmarked = mapped(public_fixtures / "cursor" / "agent-sessions" / "large.jsonl")
    assert [m.content for m in unmarked if m.type == "final"] == []  # no turn markers there


def test_results_are_named_after_their_call_and_thinking_is_left_out(
    public_fixtures: Path,
) -> None:
    """LR-153: thinking is not reported; a result takes the oldest unanswered call's name."""
    messages = mapped(public_fixtures / "cursor" / "agent-sessions" / "large.jsonl")
    kinds = [(m.type, m.tool) for m in messages]
    assert ("thinking", None) not in kinds
    results = [m for m in messages if m.type == "tool_result"]
    assert [(m.tool, m.output) for m in results] == [
        ("Bash", "file1.txt\nfile2.txt"),
        ("Read", "hello world"),
    ]
    uses = {m.source_key.removesuffix(":tool-use") for m in messages if m.type == "tool_use"}
    assert {m.source_key.removesuffix(":tool-result") for m in results} == uses


def test_keys_are_stable_across_reads_and_a_failed_turn_is_an_error(tmp_path: Path) -> None:
    """LR-192: keys come from the line's place in the file (re-reading yields the same keys);
    a bare slash command is no user input (LR-164); `turn_ended` error is an `error`, and
    after `turn_ended` success the reply's last text is the final (LR-167)."""
    path = tmp_path / "chat.jsonl"
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text": "/help"}]}},
        {"role": "user", "message": {"content": [{"type": "text", "text": "do it"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "Trying."}]}},
        {"type": "turn_ended", "status": "error", "error": "model unavailable"},
        {"role": "user", "message": {"content": [{"type": "text", "text": "again"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "Done."}]}},
        {"type": "turn_ended", "status": "success"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    first, second = mapped(path), mapped(path)
    assert [(m.type, m.content) for m in first] == [
        ("user_input", "do it"),
        ("text", "Trying."),
        ("error", "model unavailable"),
        ("user_input", "again"),
        ("final", "Done."),
    ]
    assert [m.source_key for m in first] == [m.source_key for m in second]
    offset = len(json.dumps(lines[0])) + 1
    assert first[0].source_key == f"chat:chat-1:line:{offset}:user"
