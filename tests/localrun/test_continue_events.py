"""The cn session reader on session files written here in cn 1.5.47's shape (as the real cn
writes them: see ``test_e2e_continue.py`` for the real CLI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hangar.localrun.providers.continue_cli_events import ContinueSessions

SID = "5d020d48-c996-4221-b78b-9c588ec6643d"


def user(text: str) -> dict[str, Any]:
    return {"message": {"role": "user", "content": text}, "contextItems": [], "editorState": text}


def call(call_id: str, command: str, status: str, output: str | None = None) -> dict[str, Any]:
    function = {"name": "Bash", "arguments": json.dumps({"command": command})}
    tool_call = {"id": call_id, "type": "function", "function": function}
    state: dict[str, Any] = {"toolCallId": call_id, "toolCall": tool_call, "status": status}
    if output is not None:
        state["output"] = [{"content": output, "name": "Tool Result"}]
    usage = {"prompt_tokens": 11, "completion_tokens": 7, "model": "fake-model"}
    return {
        "message": {"role": "assistant", "content": "", "toolCalls": [tool_call], "usage": usage},
        "contextItems": [],
        "toolCallStates": [state],
    }


def answer(text: str) -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": text}, "contextItems": []}


class Files:
    def __init__(self, root: Path) -> None:
        self.sessions = root / "sessions"
        self.sessions.mkdir()
        self.notices = root / "notices.jsonl"
        self.notices.touch()
        self.reader = ContinueSessions(self.notices, self.sessions)

    def save(self, history: list[dict[str, Any]], sid: str = SID, baseline: int | None = None,
             raw: str | None = None, rewrite: int | None = None) -> None:  # fmt: skip
        text = raw if raw is not None else json.dumps({"sessionId": sid, "history": history})
        (self.sessions / f"{sid}.json").write_text(text)
        notice: dict[str, Any] = {"session": sid}
        if baseline is not None:
            notice["baseline"] = baseline
        if rewrite is not None:
            notice["rewrite"] = rewrite
        with self.notices.open("a") as handle:
            handle.write(json.dumps(notice) + "\n")

    def kinds(self) -> list[tuple[str, str]]:
        return [
            (m.type, m.content or m.output or m.tool or "") for m in self.reader.read().messages
        ]


def test_an_entry_that_gains_its_tool_result_keeps_its_name(tmp_path: Path) -> None:
    """LR-160, LR-166, LR-170: positions plus content name entries; a tool call reported while it
    runs is not reported again when its result lands; the reply is the turn's final."""
    files = Files(tmp_path)
    files.save([user("RUN: ls"), call("call_1", "ls", "generated")], baseline=0)
    running = files.reader.read()
    assert [(m.type, m.tool) for m in running.messages] == [
        ("user_input", None),
        ("tool_use", "Bash"),
    ]
    assert [(u.model, u.input_tokens, u.output_tokens) for u in running.usage] == [
        ("fake-model", 11, 7)
    ]
    files.save([user("RUN: ls"), call("call_1", "ls", "done", "a.txt"), answer("Listed.")])
    mapped = files.reader.read()
    assert [(m.type, m.content or m.output) for m in mapped.messages] == [
        ("tool_result", "a.txt"),
        ("final", "Listed."),
    ]
    assert mapped.usage == []  # counted once per entry
    assert files.reader.read().messages == []  # no notice, nothing new


def test_a_rewritten_history_is_read_on_from_its_new_end(tmp_path: Path) -> None:
    """LR-160, LR-179: a save that changes what was read (a rewind, or a pick in ``/resume``,
    which cn copies into the current file) is history: only later entries are reported, under
    names the old entries at those positions never had."""
    files = Files(tmp_path)
    files.save([user("first"), answer("One.")], baseline=0)
    first = files.reader.read().messages
    files.save([user("picked earlier"), answer("Earlier.")])  # the picked session's history
    assert files.reader.read().messages == []
    files.save([user("picked earlier"), answer("Earlier."), user("after the pick")])
    files.save([user("picked earlier")])  # a rewind to the first entry
    assert files.reader.read().messages == []
    files.save([user("picked earlier"), user("again"), answer("Two.")])
    again = files.reader.read().messages
    assert [(m.type, m.content) for m in again] == [("user_input", "again"), ("final", "Two.")]
    assert {m.source_key for m in first}.isdisjoint(m.source_key for m in again)


def test_new_work_saved_right_after_a_pick_is_reported_when_read_with_it(
    tmp_path: Path,
) -> None:
    """LR-179: the pick's save (marked ``rewrite`` by the hook) and the next prompt's saves are
    read at once, as under load: the picked history stays history and what follows it is
    reported (by digests alone the whole file would look like a rewrite and be swallowed)."""
    files = Files(tmp_path)
    files.save([user("first"), answer("One.")], baseline=0)
    assert [m.type for m in files.reader.read().messages] == ["user_input", "final"]
    picked = [user("picked earlier"), answer("Earlier.")]
    files.save(picked, rewrite=2)
    files.save([*picked, user("after the pick")])
    files.save([*picked, user("after the pick"), answer("Picked.")])
    assert [(m.type, m.content) for m in files.reader.read().messages] == [
        ("user_input", "after the pick"),
        ("final", "Picked."),
    ]


def test_baseline_slash_commands_and_partial_writes(tmp_path: Path) -> None:
    """LR-179, LR-164, LR-165: a resumed file's earlier entries are never reported; a bare slash
    command is no input and its turn gets no final; one with arguments is a command; a file
    caught mid-write is read again at the next notice."""
    files = Files(tmp_path)
    earlier = [user("old question"), answer("Old answer.")]
    files.save([*earlier, user("/compact"), answer("Compacted.")], baseline=2)
    assert files.kinds() == [("text", "Compacted.")]
    files.save([], raw='{"sessionId": "x", "history": [')
    assert files.kinds() == []
    files.save([*earlier, user("/compact"), answer("Compacted."), user("/review main"),
                answer("Reviewed.")])  # fmt: skip
    mapped = files.reader.read().messages
    assert [(m.type, m.content) for m in mapped] == [
        ("user_input", "/review main"),
        ("final", "Reviewed."),
    ]
    assert mapped[0].input["command"] is True


def test_only_sessions_the_hook_named_are_read(tmp_path: Path) -> None:
    """LR-181, LR-173: a session file no notice names is never read, and a notice naming
    anything but a session id (a path) is ignored."""
    files = Files(tmp_path)
    foreign = "0b9e1f8a-0000-4000-8000-000000000000"
    (files.sessions / f"{foreign}.json").write_text(
        json.dumps({"sessionId": foreign, "history": [user("elsewhere"), answer("Other.")]})
    )
    (tmp_path / "evil.json").write_text(json.dumps({"history": [user("outside")]}))
    with files.notices.open("a") as handle:
        handle.write(json.dumps({"session": "../evil", "baseline": 0}) + "\n")
        handle.write("not json\n")
    assert files.kinds() == []
    files.save([user("mine")], sid="aaaa1111-2222-4333-8444-555566667777", baseline=0)
    assert files.kinds() == [("user_input", "mine")]


HOOK = Path(__file__).parents[2] / "src/hangar/localrun/providers/continue_session_hook.cjs"

SAVES = r"""
const fs = require("fs");
const file = process.argv[2];
const entry = (role, content) => ({ message: { role, content } });
const save = (history) => fs.writeFileSync(file, JSON.stringify({ history }));
save([entry("user", "first")]);
save([entry("user", "first"), entry("assistant", "One.")]);
save([entry("user", "picked earlier"), entry("assistant", "Earlier.")]);
save([entry("user", "picked earlier"), entry("assistant", "Earlier."), entry("user", "next")]);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_hook_marks_the_save_that_replaces_what_it_wrote(tmp_path: Path) -> None:
    """LR-179: the hook, loaded into a node process as cn loads it, names each save of a
    session file; the one whose entries no longer begin with what it wrote before carries
    ``rewrite`` with its entry count, the others do not."""
    sessions, notices = tmp_path / "sessions", tmp_path / "notices.jsonl"
    sessions.mkdir()
    notices.touch()
    script = tmp_path / "saves.js"
    script.write_text(SAVES)
    env = {"PATH": os.environ["PATH"], "HANGAR_CN_NOTICES": str(notices),
           "HANGAR_CN_SESSIONS": str(sessions)}  # fmt: skip
    done = subprocess.run(
        ["node", "--require", str(HOOK), str(script), str(sessions / f"{SID}.json")],
        env=env, capture_output=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in notices.read_text().splitlines()] == [
        {"session": SID, "baseline": 0},
        {"session": SID},
        {"session": SID, "rewrite": 2},
        {"session": SID},
    ]
