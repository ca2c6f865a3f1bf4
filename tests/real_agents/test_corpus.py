"""The committed demo corpus (demo/corpus) is complete, small and self-consistent."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "demo" / "corpus"
HOME = CORPUS / "home"


def manifest() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((CORPUS / "manifest.json").read_text())
    return document


def test_corpus_is_small_and_documented() -> None:
    size = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert size < 2 * 1024 * 1024
    assert (CORPUS / "README.md").is_file()
    assert not list(HOME.rglob("*.db-wal")) and not list(HOME.rglob(".git"))


def test_every_session_is_in_its_agents_store() -> None:
    sessions = manifest()["sessions"]
    assert {s["cli"] for s in sessions} == {"codex", "claude", "opencode", "cn"}
    assert {s["workspaceKind"] for s in sessions} == {"workspace", "worktree", "chat"}
    db = sqlite3.connect(HOME / ".local/share/opencode/opencode.db")
    try:
        opencode_ids = {row[0] for row in db.execute("SELECT id FROM session")}
        todos = db.execute("SELECT count(*) FROM todo").fetchone()[0]
    finally:
        db.close()
    assert todos > 0
    for session in sessions:
        sid, cli = session["sessionId"], session["cli"]
        assert session["cwd"].startswith("/home/demo/")
        assert len(session["turns"]) >= 2  # every session was continued
        if cli == "codex":
            (rollout,) = HOME.glob(f".codex/sessions/*/*/*/rollout-*-{sid}.jsonl")
            meta = json.loads(rollout.read_text().splitlines()[0])["payload"]
            assert meta["cwd"] == session["cwd"]
        elif cli == "claude":
            (transcript,) = HOME.glob(f".claude/projects/*/{sid}.jsonl")
            lines = [json.loads(line) for line in transcript.read_text().splitlines()]
            assert any(line.get("isApiErrorMessage") for line in lines)  # the failing turn
        elif cli == "opencode":
            assert sid in opencode_ids
        else:
            document = json.loads((HOME / f".continue/sessions/{sid}.json").read_text())
            assert document["workspaceDirectory"] == session["cwd"]


def test_paths_look_like_a_real_users() -> None:
    for path in HOME.rglob("*"):
        if path.is_file():
            text = path.read_bytes()
            assert b"/tmp/" not in text and b"hangar-corpus" not in text, path
