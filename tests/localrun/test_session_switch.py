"""Session switches inside one run, on files written here in the shapes the real CLIs write
(Gemini 0.61's telemetry log and chat files, Copilot 1.0.102's spans and event logs; the real
CLIs: ``test_e2e_gemini.py``, ``test_e2e_copilot.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hangar.localrun.providers import copilot, gemini
from hangar.localrun.providers.base import IssueContext
from hangar.localrun.providers.followed import Seen
from hangar.localrun.providers.gemini_events import GeminiSessionFile
from hangar.localrun.providers.otel_file import OtelFile
from hangar.localrun.providers.session_switch import SwitchingReader
from hangar.localrun.pty_runner import ScriptedPtyRunner

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
NESTED = "33333333-3333-4333-8333-333333333333"


def said(found: list[Seen]) -> list[tuple[str, str, str]]:
    return [(m.type, m.content, m.input["session_id"]) for s in found for m in s.messages]


def gemini_record(current: str, started_with: str) -> str:
    """A log record as Gemini's file exporter writes it (indented JSON)."""
    resource = {"_rawAttributes": [["process.pid", 7], ["session.id", started_with]]}
    attributes = {"session.id": current, "event.name": "gemini_cli.user_prompt"}
    record = {"hrTime": [1, 2], "resource": resource, "attributes": attributes}
    return json.dumps(record, indent=2) + "\n"


def test_the_telemetry_file_yields_complete_records_and_waits_for_a_partial_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "telemetry.json"
    reader = OtelFile(path)
    assert reader.records() == []  # not written yet
    text = gemini_record(S1, S1) + json.dumps({"resource": {}, "scopeMetrics": []}, indent=2)
    cut = len(text) - 5
    path.write_text(text[:cut])
    assert [r["attributes"]["session.id"] for r in reader.records()] == [S1]
    with path.open("a") as handle:
        handle.write(text[cut:] + "\n[1, 2]\n" + gemini_record(S2, S1))
    assert [next(iter(r)) for r in reader.records()] == ["resource", "hrTime"]


def test_gemini_names_only_the_sessions_of_the_process_it_started(tmp_path: Path) -> None:
    """LR-173: a gemini the agent's tools start writes to the same file (it inherits the
    environment) with its own starting session in the resource; it names nothing."""
    path = tmp_path / "telemetry.json"
    path.write_text(
        gemini_record(S1, S1) + gemini_record(S1, S1) + gemini_record(NESTED, NESTED)
        + gemini_record(S2, S1) + gemini_record(S1, S1)
    )  # fmt: skip
    assert gemini.SessionNames(path, S1)() == [S1, S2, S1]


def chat_line(**record: Any) -> str:
    return json.dumps(record) + "\n"


def test_a_gemini_session_resumed_inside_the_run_is_read_after_its_resume_record(
    tmp_path: Path,
) -> None:
    """LR-179: nothing said before the `/resume` is reported again."""
    chats = tmp_path / "tmp" / "work" / "chats"
    chats.mkdir(parents=True)
    path = chats / f"session-2026-12-02T10-00-{S2[:8]}.jsonl"
    path.write_text(
        chat_line(sessionId=S2, kind="main")
        + chat_line(id="u1", type="user", content=[{"text": "earlier"}])
        + chat_line(id="g1", type="gemini", content="Earlier answer.")
        + chat_line(**{"$set": {"sessionId": S2}})
        + chat_line(id="u2", type="user", content=[{"text": "after resume"}])
        + chat_line(id="g2", type="gemini", content="Resumed answer.")
    )
    chat = GeminiSessionFile(tmp_path / "tmp", S2, from_end=False, from_resume=True)
    assert chat.open()
    messages = chat.read(ended=True).messages
    assert [(m.type, m.content) for m in messages] == [
        ("user_input", "after resume"),
        ("final", "Resumed answer."),
    ]
    never = GeminiSessionFile(tmp_path / "tmp", NESTED, from_end=False, from_resume=True)
    assert not never.open()  # no such file: not followed (LR-181)


def event(kind: str, n: int, **data: Any) -> str:
    return json.dumps({"type": kind, "data": data, "id": f"e{n}"}) + "\n"


def span(session: str) -> str:
    return json.dumps({"type": "span", "name": "invoke_agent",
                       "attributes": {"gen_ai.conversation.id": session}}) + "\n"  # fmt: skip


def test_copilot_switches_follow_the_named_sessions_from_their_start_or_resume(
    tmp_path: Path,
) -> None:
    """LR-179, LR-181: `/clear` to a new session (read from its start), `/resume`
    back to the first (read on where the run stopped); a session named before its log says
    it holds that session is not read until it does."""
    env = {"COPILOT_HOME": str(tmp_path / "copilot")}
    logs = {s: copilot.events_file(env, s) for s in (S1, S2)}
    for path in logs.values():
        path.parent.mkdir(parents=True)
    logs[S1].write_text(
        event("session.start", 1, sessionId=S1)
        + event("user.message", 2, content="first")
        + event("assistant.message", 3, content="First answer.", toolRequests=[])
    )
    spans = tmp_path / "telemetry.jsonl"
    reader = SwitchingReader(
        copilot.CopilotReader(logs[S1], S1, from_end=False),
        copilot.SessionNames(spans),
        lambda session: copilot.open_switched(env, session),
    )
    assert said(reader.read()) == [("user_input", "first", S1), ("final", "First answer.", S1)]
    spans.write_text(span(S1) + span(S2))
    assert said(reader.read()) == [] and reader.session_id == S1  # S2 has no log yet
    logs[S2].write_text(
        event("session.start", 1, sessionId=S2)
        + event("user.message", 2, content="after clear")
        + event("assistant.message", 3, content="Cleared answer.", toolRequests=[])
    )
    assert said(reader.read()) == [
        ("user_input", "after clear", S2),
        ("final", "Cleared answer.", S2),
    ]
    assert reader.session_id == S2
    with logs[S1].open("a") as handle:
        handle.write(event("session.resume", 4, eventCount=3))
        handle.write(event("user.message", 5, content="after resume"))
        handle.write(event("assistant.message", 6, content="Resumed answer.", toolRequests=[]))
    with spans.open("a") as handle:
        handle.write(span(S1))
    assert said(reader.read()) == [
        ("user_input", "after resume", S1),
        ("final", "Resumed answer.", S1),
    ]
    assert reader.session_id == S1


def test_a_copilot_session_resumed_inside_the_run_is_read_after_its_resume_event(
    tmp_path: Path,
) -> None:
    env = {"COPILOT_HOME": str(tmp_path / "copilot")}
    log = copilot.events_file(env, S2)
    log.parent.mkdir(parents=True)
    log.write_text(
        event("session.start", 1, sessionId=S2)
        + event("user.message", 2, content="earlier")
        + event("assistant.message", 3, content="Earlier answer.", toolRequests=[])
        + event("session.resume", 4, eventCount=3)
        + event("user.message", 5, content="after resume")
    )
    reader = copilot.open_switched(env, S2)
    assert reader is not None
    assert said(reader.read()) == [("user_input", "after resume", S2)]
    other = copilot.events_file(env, NESTED)
    other.parent.mkdir(parents=True)
    other.write_text(event("session.start", 1, sessionId=S1))  # a log naming another session
    assert copilot.open_switched(env, NESTED) is None


def test_leaving_a_gemini_session_settles_its_last_reply_before_the_next_session_speaks(
    tmp_path: Path,
) -> None:
    """LR-179: Gemini writes the resumed session's prompt before its telemetry names the
    switch; the cleared session's last reply (final only once something follows it) is still
    reported first, and the resumed session's prompt after it."""
    chats = tmp_path / "tmp" / "work" / "chats"
    chats.mkdir(parents=True)
    files = {s: chats / f"session-2026-12-02T10-0{n}-{s[:8]}.jsonl" for n, s in enumerate((S1, S2))}
    files[S1].write_text(
        chat_line(sessionId=S1, kind="main")
        + chat_line(id="u1", type="user", content=[{"text": "first"}])
        + chat_line(id="g1", type="gemini", content="First answer.")
    )
    telemetry = tmp_path / "telemetry.json"
    reader = SwitchingReader(
        gemini.GeminiReader(GeminiSessionFile(tmp_path / "tmp", S1, from_end=False)),
        gemini.SessionNames(telemetry, S1),
        lambda s: gemini.GeminiReader(GeminiSessionFile(tmp_path / "tmp", s, from_end=False)),
    )
    assert said(reader.read()) == [("user_input", "first", S1)]
    files[S2].write_text(
        chat_line(sessionId=S2, kind="main")
        + chat_line(id="u2", type="user", content=[{"text": "after clear"}])
        + chat_line(id="g2", type="gemini", content="Cleared answer.")
    )
    telemetry.write_text(gemini_record(S2, S1))
    assert said(reader.read()) == [
        ("final", "First answer.", S1),
        ("user_input", "after clear", S2),
    ]
    with files[S1].open("a") as handle:  # `/resume` back to S1; its name is not out yet
        handle.write(chat_line(**{"$set": {"sessionId": S1}}))
        handle.write(chat_line(id="u3", type="user", content=[{"text": "after resume"}]))
    assert said(reader.read()) == []
    with telemetry.open("a") as handle:
        handle.write(gemini_record(S1, S1))
    assert said(reader.read()) == [
        ("final", "Cleared answer.", S2),
        ("user_input", "after resume", S1),
    ]


def test_a_gemini_session_from_before_the_run_is_read_only_from_its_resume_record(
    tmp_path: Path,
) -> None:
    """LR-179: named before Gemini has written its resume record, a session that existed
    before the run waits for it instead of being read whole; the provider cleans up its
    telemetry folder."""
    env = {"GEMINI_CLI_HOME": str(tmp_path)}
    chats = tmp_path / ".gemini" / "tmp" / "work" / "chats"
    chats.mkdir(parents=True)
    old = chats / f"session-2026-01-01T10-00-{S2[:8]}.jsonl"
    old.write_text(
        chat_line(sessionId=S2, kind="main", startTime="2026-01-01T10:00:00.000Z")
        + chat_line(id="u1", type="user", content=[{"text": "long ago"}])
        + chat_line(id="g1", type="gemini", content="Old answer.")
    )
    provider = gemini.GeminiProvider(ScriptedPtyRunner(lambda _c: 0), IssueContext("HGR-1", "t"))
    prepared = provider.prepare(["gemini", "--session-id", S1], tmp_path, env, False)
    outfile = Path(prepared.env["GEMINI_TELEMETRY_OUTFILE"]) if prepared.env else None
    assert outfile is not None and prepared.env is not None
    assert prepared.env["GEMINI_TELEMETRY_TARGET"] == "local"
    outfile.write_text(gemini_record(S2, S1))
    assert said(prepared.reader.read()) == [] and prepared.reader.session_id == S1
    with old.open("a") as handle:
        handle.write(chat_line(**{"$set": {"sessionId": S2}}))
        handle.write(chat_line(id="u2", type="user", content=[{"text": "now"}]))
    assert said(prepared.reader.read()) == [("user_input", "now", S2)]
    assert prepared.cleanup is not None
    prepared.cleanup()
    assert not outfile.parent.exists()
