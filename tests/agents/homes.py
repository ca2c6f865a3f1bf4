"""Sample agent homes laid out from the shared public fixtures (copied into tmp, never into
the project), one builder per runtime, plus writers for stores no fixture covers."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hangar.agents.homes import AgentHome

T_KIRO = 1779012000000
T_CN = 1796017740


def _copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return dst


def opencode_storage_home(fixtures: Path, root: Path, tree: str) -> AgentHome:
    """An OpenCode data dir whose ``storage/`` is one of the fixture trees."""
    shutil.copytree(fixtures / "opencode" / "agent-sessions" / tree, root / "storage")
    return AgentHome("opencode", root, None)


def gemini_home(fixtures: Path, root: Path) -> AgentHome:
    for n, path in enumerate(sorted((fixtures / "gemini").rglob("*.json*"))):
        name = f"session-fixture-{n:02d}-{path.stem}{path.suffix}"
        _copy(path, root / "tmp" / f"hash{n % 2}" / "chats" / name)
    (root / "tmp" / "hash0" / ".project_root").write_text("/home/user/project-zero\n")
    return AgentHome("gemini", root, None)


def copilot_home(fixtures: Path, root: Path) -> AgentHome:
    base = fixtures / "copilot" / "agent-sessions"
    for path in sorted(base.glob("*.jsonl")):
        _copy(path, root / "session-state" / path.name)
    for events in sorted(base.glob("subdir_v1/*/events.jsonl")):
        _copy(events, root / "session-state" / events.parent.name / "events.jsonl")
    return AgentHome("copilot", root, None)


def qwen_home(fixtures: Path, root: Path) -> AgentHome:
    for path in sorted((fixtures / "qwen").rglob("*.jsonl")):
        _copy(path, root / "projects" / "-tmp-as-qwen-fixture" / "chats" / path.name)
    return AgentHome("qwen", root, None)


def cursor_home(fixtures: Path, root: Path) -> AgentHome:
    base = fixtures / "cursor" / "agent-sessions"
    transcripts = root / "projects" / "home-user-demo" / "agent-transcripts"
    for path in sorted(base.glob("*.jsonl")):
        _copy(path, transcripts / path.stem / f"{path.stem}.jsonl")
    _copy(base / "subagent" / "parent.jsonl", transcripts / "parent" / "parent.jsonl")
    _copy(
        base / "subagent" / "subagents" / "child.jsonl",
        transcripts / "parent" / "subagents" / "child.jsonl",
    )
    return AgentHome("cursor", root, None)


def kiro_home(fixtures: Path, root: Path) -> AgentHome:
    """The payload fixtures in a ``conversations_v2`` table and as session files."""
    data_dir = root / "legacy-data"
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / "data.sqlite3")
    conn.execute(
        "CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, "
        "value TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, "
        "PRIMARY KEY (key, conversation_id))"
    )
    base = fixtures / "kiro" / "agentsview"
    for n, path in enumerate(sorted(p for p in base.iterdir() if "LICENSE" not in p.name)):
        value = path.read_text()
        conn.execute(
            "INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)",
            (f"/home/user/code/{path.stem}", path.stem, value, T_KIRO + n, T_KIRO + 30000 + n),
        )
    conn.commit()
    conn.close()
    _copy(base / "standard_payload.json", root / "sessions" / "cli" / "standard.json")
    return AgentHome("kiro", root, None, (("legacyData", data_dir),))


def continue_home(root: Path, sessions: dict[str, dict[str, Any]]) -> AgentHome:
    """A Continue home with these session documents and a ``sessions.json`` index."""
    folder = root / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for session_id, document in sessions.items():
        path = folder / f"{session_id}.json"
        path.write_text(json.dumps(document, indent=2))
        # A fixed mtime: cn's session time is the file's, and snapshots must be stable.
        os.utime(path, (T_CN, T_CN))
        index.append(
            {
                "sessionId": session_id,
                "title": document.get("title", "Untitled Session"),
                "dateCreated": "1796017739400",
                "workspaceDirectory": document.get("workspaceDirectory", "/home/user/demo"),
                "messageCount": len(document.get("history", [])),
            }
        )
    (folder / "sessions.json").write_text(json.dumps(index, indent=2))
    return AgentHome("continue", root, None)


def codex_home(fixtures: Path, root: Path) -> AgentHome:
    day = root / "sessions" / "2026" / "05" / "11"
    for path in sorted((fixtures / "codex" / "codemie-code").glob("rollout-*.jsonl")):
        _copy(path, day / path.name)
    return AgentHome("codex", root, None)


def claude_home(fixtures: Path, root: Path) -> AgentHome:
    project = root / "projects" / "-work-demo"
    for path in sorted((fixtures / "claude" / "agentsview").glob("*.jsonl")):
        _copy(path, project / path.name)
    return AgentHome("claude", root, None)


HomeBuilder = Callable[[Path, Path], AgentHome]

#: Runtime → builder of a sample home from the public fixtures.
FIXTURE_HOMES: dict[str, HomeBuilder] = {
    "gemini": gemini_home,
    "copilot": copilot_home,
    "qwen": qwen_home,
    "cursor": cursor_home,
    "kiro": kiro_home,
    "codex": codex_home,
    "claude": claude_home,
}
