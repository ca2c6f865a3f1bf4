"""Gemini CLI store: legacy JSON, JSONL with `$set` and `$rewindTo`, project folders."""

from __future__ import annotations

import json
from pathlib import Path

from hangar.agents.gemini import GeminiJsonlProjector, GeminiStore
from hangar.agents.homes import AgentHome
from hangar.agents.message_log import MessageLog
from hangar.model import Message, ToolBlock

from .homes import gemini_home


def _line(record: dict[str, object]) -> bytes:
    return json.dumps(record).encode()


def _apply(messages: list[Message], projector: GeminiJsonlProjector) -> int:
    delta = projector.take()
    messages[delta.start :] = delta.messages
    return delta.start


def test_rewind_removes_the_message_and_everything_after(tmp_path: Path) -> None:
    """`$rewindTo` is append-only in bytes, not in meaning: the delta starts earlier."""
    projector = GeminiJsonlProjector()
    messages: list[Message] = []
    projector.feed(_line({"sessionId": "s1", "projectHash": "h", "startTime": "t0"}))
    for rid, kind, text in [
        ("u1", "user", "first"),
        ("g1", "gemini", "one"),
        ("u2", "user", "second"),
        ("g2", "gemini", "two"),
    ]:
        projector.feed(_line({"id": rid, "type": kind, "content": text, "timestamp": rid}))
    assert _apply(messages, projector) == 0
    assert [m.content for m in messages] == ["first", "one", "second", "two"]
    projector.feed(_line({"$rewindTo": "u2"}))
    assert _apply(messages, projector) == 2
    assert [m.content for m in messages] == ["first", "one"]
    projector.feed(_line({"id": "u3", "type": "user", "content": "again"}))
    projector.feed(_line({"$set": {"lastUpdated": "t9", "summary": "A title"}}))
    _apply(messages, projector)
    assert [m.content for m in messages] == ["first", "one", "again"]
    assert [m.index for m in messages] == [0, 1, 2]
    summary = projector.summary()
    assert (summary.title, summary.updated_at, summary.skipped) == ("A title", "t9", {})
    projector.feed(_line({"$rewindTo": "nope"}))
    assert projector.summary().skipped == {"rewind_unknown_id": 1}


def test_a_record_written_again_replaces_the_earlier_one() -> None:
    projector = GeminiJsonlProjector()
    projector.feed(_line({"id": "u1", "type": "user", "content": "hi"}))
    call = {
        "id": "c1",
        "name": "run_shell_command",
        "args": {"command": "ls"},
        "status": "executing",
    }
    projector.feed(_line({"id": "g1", "type": "gemini", "content": "", "toolCalls": [call]}))
    first = projector.take()
    done = {
        **call,
        "status": "success",
        "result": [{"functionResponse": {"id": "c1", "response": {"output": "a.txt"}}}],
    }
    projector.feed(_line({"id": "g1", "type": "gemini", "content": "Listed.", "toolCalls": [done]}))
    second = projector.take()
    assert len(first.messages) == 2 and second.start == 1
    [reply] = second.messages
    assert reply.content == "Listed."
    tool = next(b for b in reply.blocks or [] if isinstance(b, ToolBlock))
    assert (tool.output, tool.status) == ("a.txt", "done")


def test_discovery_reads_heads_and_project_roots(public_fixtures: Path, tmp_path: Path) -> None:
    store = GeminiStore(gemini_home(public_fixtures, tmp_path / "gemini"))
    sources = list(store.discover())
    assert len(sources) == 9
    jsonl = next(s for s in sources if s.path.suffix == ".jsonl")
    assert jsonl.session_id == "gemini_stage0_jsonl"
    assert {s.workspace_path for s in sources} == {"/home/user/project-zero", None}
    loaded = store.load(jsonl)
    projector = store.new_projector(jsonl)
    for line in jsonl.path.read_bytes().split(b"\n"):
        projector.feed(line)
    assert projector.take().messages == loaded.messages


def test_message_log_truncate_keeps_earlier_messages() -> None:
    log = MessageLog()
    log.user("u1", "one")
    log.assistant("a1")
    log.user("u2", "two")
    log.take()
    log.truncate(1)
    delta = log.take()
    assert (delta.start, delta.messages) == (1, [])
    assert [m.id for m in log.messages] == ["u1"]


def test_gemini_home_override(tmp_path: Path) -> None:
    """GEMINI_CLI_HOME moves ~/.gemini (paths.agent_homes)."""
    from hangar.agents.registry import agent_homes

    homes = agent_homes({"HOME": str(tmp_path), "GEMINI_CLI_HOME": str(tmp_path / "g")})
    assert homes["gemini"] == AgentHome("gemini", tmp_path / "g" / ".gemini", "GEMINI_CLI_HOME")


def test_the_engine_appends_to_a_jsonl_log_and_reparses_json(
    public_fixtures: Path, tmp_path: Path
) -> None:
    """JSONL sessions take the engine's append path (only new bytes read); a `$rewindTo`
    appended later shrinks the transcript through the same path."""
    from hangar.transcripts.engine import TranscriptEngine

    store = GeminiStore(gemini_home(public_fixtures, tmp_path / "gemini"))
    sources = list(store.discover())
    jsonl = next(s for s in sources if s.path.suffix == ".jsonl")
    legacy = next(s for s in sources if s.path.suffix == ".json")
    assert store.reads_incrementally(jsonl) and not store.reads_incrementally(legacy)
    engine = TranscriptEngine()
    assert len(engine.read("j", store, jsonl).messages) == 2
    with jsonl.path.open("ab") as handle:
        handle.write(_line({"id": "u9", "type": "user", "content": "more"}) + b"\n")
    assert [m.content for m in engine.read("j", store, jsonl).messages][-1] == "more"
    with jsonl.path.open("ab") as handle:
        handle.write(_line({"$rewindTo": "u9"}) + b"\n")
    after = engine.read("j", store, jsonl).messages
    assert len(after) == 2 and engine.stats.appends == 2 and engine.stats.full_parses == 1
    assert engine.read("l", store, legacy).messages == store.load(legacy).messages
