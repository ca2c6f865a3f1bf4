"""Kiro CLI store (low confidence formats): the SQLite conversations and session files."""

from __future__ import annotations

from pathlib import Path

from hangar.agents.kiro import KiroStore
from hangar.model import ToolBlock

from .homes import kiro_home


def test_sqlite_conversations_and_session_files(public_fixtures: Path, tmp_path: Path) -> None:
    store = KiroStore(kiro_home(public_fixtures, tmp_path / "kiro"))
    sources = {s.session_id: s for s in store.discover()}
    assert set(sources) == {"malformed_payload", "overlap_payload", "standard_payload", "standard"}
    standard = store.load(sources["standard_payload"])
    assert [m.role for m in standard.messages] == ["user", "assistant", "user", "assistant"]
    assert standard.summary.workspace_path == "/home/user/code/kiro-app"
    tool = standard.messages[3].blocks[0] if standard.messages[3].blocks else None
    assert isinstance(tool, ToolBlock) and tool.name == "execute_bash" and tool.kind == "shell"
    broken = store.load(sources["malformed_payload"])
    assert broken.messages == [] and broken.summary.skipped == {"invalid_json": 1}
    assert store.load(sources["standard"]).messages == standard.messages


def test_tool_results_answer_the_previous_reply(tmp_path: Path) -> None:
    from hangar.agents.kiro import parse_payload

    payload = """{"conversation_id": "c", "history": [
      [{"content": {"Prompt": {"prompt": "run it"}}},
       {"ToolUse": {"message_id": "a1", "content": "", "tool_uses": [
          {"id": "t1", "name": "execute_bash", "args": {"command": "ls"}}]}}],
      [{"content": {"ToolUseResults": {"tool_use_results": [
          {"tool_use_id": "t1", "content": [{"Text": "a.txt"}], "status": "Success"}]}}},
       {"Response": {"message_id": "a2", "content": "Found a.txt."}}]
    ]}"""
    loaded = parse_payload(payload)
    assert [m.role for m in loaded.messages] == ["user", "assistant"]
    reply = loaded.messages[1]
    tool = reply.blocks[0] if reply.blocks else None
    assert isinstance(tool, ToolBlock) and (tool.output, tool.status) == ("a.txt", "done")
    assert reply.content == "Found a.txt."


def test_a_conversation_in_both_stores_is_read_from_the_files(
    public_fixtures: Path, tmp_path: Path
) -> None:
    store = KiroStore(kiro_home(public_fixtures, tmp_path / "kiro"))
    (store.home.root / "sessions" / "cli" / "overlap_payload.json").write_text(
        (public_fixtures / "kiro" / "agentsview" / "overlap_payload.json").read_text()
    )
    found = [s for s in store.discover() if s.session_id == "overlap_payload"]
    assert [s.path.suffix for s in found] == [".json"]
