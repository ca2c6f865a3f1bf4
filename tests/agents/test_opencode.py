"""OpenCode store: SQLite sessions, todo lists as checklist blocks, sub-agents, live writer."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from hangar.agents.base import LoadedSession, SessionSource
from hangar.agents.homes import AgentHome
from hangar.agents.opencode import OpenCodeStore
from hangar.model import ChecklistBlock, Message, ToolBlock

from .opencode_db import OpenCodeWriter, todo


def _store(root: Path) -> OpenCodeStore:
    return OpenCodeStore(AgentHome("opencode", root, None))


def _load(root: Path, session_id: str) -> LoadedSession:
    store = _store(root)
    source = next(s for s in store.discover() if s.session_id == session_id)
    return store.load(source)


def _lists(message: Message) -> list[list[tuple[str, str]]]:
    return [
        [(i.content, i.status) for i in b.items]
        for b in message.blocks or []
        if isinstance(b, ChecklistBlock)
    ]


def test_each_todowrite_replaces_the_list_on_its_request(tmp_path: Path) -> None:
    """CL-001, CL-002, CL-029, CL-031: create, modify, reorder, delete and duplicate items,
    each update a whole list on the assistant message of the request."""
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session()
    user = db.user(sid, "Plan it")
    step = db.assistant(sid, user)
    db.todowrite(sid, step, [todo("A"), todo("B"), todo("C")])
    db.todowrite(sid, step, [todo("A", "completed"), todo("B", "in_progress"), todo("C")])
    db.todowrite(sid, step, [todo("C"), todo("A", "completed"), todo("B", "in_progress")])
    db.todowrite(sid, step, [todo("C"), todo("B", "in_progress")])
    db.todowrite(sid, step, [todo("Same"), todo("Same", "completed")])
    db.close()
    loaded = _load(tmp_path, sid)
    assistant = loaded.messages[1]
    assert assistant.role == "assistant" and assistant.turn_id == user
    assert _lists(assistant) == [
        [("A", "pending"), ("B", "pending"), ("C", "pending")],
        [("A", "completed"), ("B", "in_progress"), ("C", "pending")],
        [("C", "pending"), ("A", "completed"), ("B", "in_progress")],
        [("C", "pending"), ("B", "in_progress")],
        [("Same", "pending"), ("Same", "completed")],
    ]
    assert loaded.summary.checklist is not None
    assert [i.content for i in loaded.summary.checklist.items] == ["Same", "Same"]
    # CL-067: the tool activity stays visible next to the checklist.
    assert sum(isinstance(b, ToolBlock) for b in assistant.blocks or []) == 5


def test_a_long_checklist_survives_whole(tmp_path: Path) -> None:
    """CL-008, CL-009, CL-019: a list of more than 10,000 characters is read from the raw
    tool input, never a display string, and arrives complete."""
    items = [todo(f"Step {n}: " + "x" * 300) for n in range(40)]
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session()
    user = db.user(sid, "Plan a lot")
    db.todowrite(sid, db.assistant(sid, user), items)
    db.close()
    loaded = _load(tmp_path, sid)
    checklist = loaded.summary.checklist
    assert checklist is not None
    assert sum(len(i.content) for i in checklist.items) > 10_000
    assert [i.content for i in checklist.items] == [i["content"] for i in items]


def test_an_empty_list_clears_and_an_invalid_update_keeps(tmp_path: Path) -> None:
    """CL-023, CL-025, CL-030, CL-070: ``[]`` clears (an empty block is kept); a failed or
    malformed todowrite changes nothing."""
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session()
    user = db.user(sid, "Plan")
    step = db.assistant(sid, user)
    db.todowrite(sid, step, [todo("Keep me")])
    db.todowrite(sid, step, [{"content": "Bad", "status": "bogus", "priority": "high"}])
    db.tool(sid, step, "todowrite", {"todos": [todo("Never")]}, "error", error="invalid input")
    loaded = _load(tmp_path, sid)
    assert loaded.summary.checklist is not None
    assert [i.content for i in loaded.summary.checklist.items] == ["Keep me"]
    assert _lists(loaded.messages[1]) == [[("Keep me", "pending")]]
    db.todowrite(sid, step, [])
    db.close()
    cleared = _load(tmp_path, sid)
    assert cleared.summary.checklist is not None and cleared.summary.checklist.cleared
    assert _lists(cleared.messages[1])[-1] == []


def test_consecutive_turns_keep_their_own_lists(tmp_path: Path) -> None:
    """CL-064, CL-065, CL-068: each turn's list stays on its own assistant message; a later
    turn without a list gets no block; reading again restores the same history."""
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session()
    first = db.user(sid, "Turn one")
    db.todowrite(sid, db.assistant(sid, first), [todo("One", "in_progress")])
    second = db.user(sid, "Turn two")
    db.todowrite(sid, db.assistant(sid, second), [todo("Two")])
    third = db.user(sid, "Turn three")
    db.text(sid, db.assistant(sid, third), "No list here.")
    db.close()
    messages = _load(tmp_path, sid).messages
    assert [m.role for m in messages] == ["user", "assistant"] * 3
    assert _lists(messages[1]) == [[("One", "in_progress")]]
    assert _lists(messages[3]) == [[("Two", "pending")]]
    assert _lists(messages[5]) == []
    assert _load(tmp_path, sid).messages == messages


def test_child_session_list_never_leaks_into_the_parent(tmp_path: Path) -> None:
    """CL-036, CL-064: a sub-agent's todo list stays inside the task call's children, and
    the child session is discovered only as a child (never its own task)."""
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session("Parent")
    user = db.user(sid, "Delegate")
    step = db.assistant(sid, user)
    db.todowrite(sid, step, [todo("Parent item")])
    child = db.session("Child", parent=sid)
    db.tool(sid, step, "task", {"prompt": "Go"}, metadata={"sessionId": child})
    child_user = db.user(child, "Go")
    db.todowrite(child, db.assistant(child, child_user), [todo("Child item")])
    db.close()
    sources = {s.session_id: s for s in _store(tmp_path).discover()}
    assert sources[child].parent_session_id == sid
    assert sources[sid].parent_session_id is None
    loaded = _load(tmp_path, sid)
    assert loaded.summary.checklist is not None
    assert [i.content for i in loaded.summary.checklist.items] == ["Parent item"]
    parent_reply = loaded.messages[1]
    assert _lists(parent_reply) == [[("Parent item", "pending")]]
    task = next(
        b for b in parent_reply.blocks or [] if isinstance(b, ToolBlock) and b.name == "task"
    )
    assert task.children is not None and task.kind == "subagent"
    assert _lists(task.children[1]) == [[("Child item", "pending")]]


def test_todo_table_is_used_only_when_no_tool_input_is_readable(tmp_path: Path) -> None:
    """CL-010, CL-011: the stored snapshot is tied to the request whose time window holds
    its update, and never replaces a list read from the tool input."""
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session()
    first = db.user(sid, "One")
    db.text(sid, db.assistant(sid, first), "ok")
    second = db.user(sid, "Two")
    reply = db.assistant(sid, second)
    db.conn.execute(
        "INSERT INTO todo VALUES (?, 'From table', 'pending', 'low', 0, ?, ?)",
        (sid, db.clock, db.clock),
    )
    db.close()
    messages = _load(tmp_path, sid).messages
    assert _lists(messages[1]) == []
    assert _lists(messages[3]) == [[("From table", "pending")]]
    assert messages[3].id == reply


def test_reading_never_blocks_a_live_writer(tmp_path: Path) -> None:
    """The reader opens the WAL database read-only in short transactions: a writer process
    committing turn after turn with no busy timeout (a lock would fail at once) is never
    refused or made to wait, the reader never errors and sees the session grow, and at the
    end the writer can checkpoint the whole WAL (no read transaction is left open)."""
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session()
    db.close()
    turns = 150
    writer = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).with_name("opencode_db.py")),
            str(tmp_path / "opencode.db"),
            sid,
            str(turns),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    store = _store(tmp_path)
    counts: list[int] = []
    while writer.poll() is None or not counts:
        source: SessionSource = next(iter(store.discover()))
        counts.append(len(store.load(source).messages))
    out, err = writer.communicate()
    # With no busy timeout, a commit the reader held up would have failed the writer at once.
    assert writer.returncode == 0, err.decode()
    assert len(json.loads(out)) == turns
    assert len(counts) > 1 and counts == sorted(counts)
    final = store.load(next(iter(store.discover())))
    checker = sqlite3.connect(tmp_path / "opencode.db")
    busy, _, _ = checker.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    checker.close()
    assert busy == 0, "no read transaction or lock is left behind by the reader"
    assert len(final.messages) == 2 * turns
    assert final.summary.checklist is not None
    assert final.summary.checklist.items[0].content == f"item {turns - 1}"


def test_a_corrupt_database_is_counted_not_raised(tmp_path: Path) -> None:
    db = OpenCodeWriter(tmp_path / "opencode.db")
    sid = db.session()
    db.close()
    store = _store(tmp_path)
    source = next(iter(store.discover()))
    (tmp_path / "opencode.db").write_bytes(b"not a database" * 100)
    loaded = store.load(source)
    assert loaded.messages == [] and loaded.summary.skipped == {"database_error": 1}
    assert list(store.discover()) == []
    assert source.session_id == sid


def test_the_engine_rereads_when_only_the_wal_changed(tmp_path: Path) -> None:
    """A running OpenCode writes into ``opencode.db-wal``; the main file's signature stays
    the same, so the store's change marker makes the engine read the session again."""
    from hangar.transcripts.engine import TranscriptEngine

    db = OpenCodeWriter(tmp_path / "opencode.db")  # stays open: rows stay in the WAL
    sid = db.session()
    first = db.user(sid, "One")
    db.text(sid, db.assistant(sid, first), "ok")
    store = _store(tmp_path)
    source = next(iter(store.discover()))
    engine = TranscriptEngine()
    assert len(engine.read("k", store, source).messages) == 2
    main_before = (tmp_path / "opencode.db").stat()
    second = db.user(sid, "Two")
    db.text(sid, db.assistant(sid, second), "ok again")
    main_after = (tmp_path / "opencode.db").stat()
    assert (main_before.st_size, main_before.st_mtime_ns) == (
        main_after.st_size,
        main_after.st_mtime_ns,
    ), "the new rows are only in the WAL"
    assert len(engine.read("k", store, source).messages) == 4
    parses = engine.stats.full_parses
    engine.read("k", store, source)
    assert engine.stats.full_parses == parses, "nothing changed: no read"
    db.close()
