"""Kiro CLI (low confidence: formats reported by third parties, checked against fixtures).

Sources: the SQLite store ``data.sqlite3`` in Kiro's data dir (table
``conversations_v2(key = cwd, conversation_id, value JSON, created_at, updated_at)``, or
the older ``conversations(key, value)``), and session files
``~/.kiro/sessions/cli/<id>.json`` holding the same conversation payload. Payloads are
rewritten whole, so the store is signature-based. A payload's ``history`` is a list of
``{user, assistant, request_metadata}`` entries (or ``[user, assistant]`` pairs); user
``Prompt`` opens a request, ``ToolUseResults`` answers the previous reply's tool calls.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hangar.agents.base import AgentStore, LoadedSession, SessionSource, SessionSummary
from hangar.agents.json_fields import as_map, as_str
from hangar.agents.json_records import SkipCounter, decode_document
from hangar.agents.message_log import MessageLog
from hangar.agents.peek import stat_marks
from hangar.agents.timestamps import iso_from_millis
from hangar.agents.tool_kinds import running_tool
from hangar.agents.tool_output import output_text
from hangar.model import TextBlock
from hangar.regular_files import read_regular_bytes

RUNTIME = "kiro"
BUSY_TIMEOUT_MS = 2000
MAX_FILE_BYTES = 64 * 1024 * 1024


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(
        f"file:{quote(str(path))}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA query_only = 1")
    return conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def parse_payload(data: bytes | str) -> LoadedSession:
    """A conversation payload (one ``value`` or one session file) as messages."""
    skipped = SkipCounter()
    payload = decode_document(data, skipped)
    if payload is None:
        return LoadedSession([], SessionSummary(skipped=skipped.counts))
    log = MessageLog()
    conv = as_str(payload.get("conversation_id")) or "conversation"
    cwd: str | None = None
    history = payload.get("history")
    for n, entry in enumerate(history if isinstance(history, list) else []):
        if isinstance(entry, list) and len(entry) == 2:
            entry = {"user": entry[0], "assistant": entry[1]}
        if not isinstance(entry, Mapping):
            skipped.add("invalid_entry")
            continue
        user = as_map(entry.get("user"))
        cwd = _cwd(user) or cwd
        _user(log, f"{conv}-{n}", user, skipped)
        assistant = entry.get("assistant")
        if isinstance(assistant, Mapping):
            meta = entry.get("request_metadata")
            end = meta.get("stream_end_timestamp_ms") if isinstance(meta, Mapping) else None
            _assistant(log, f"{conv}-{n}", assistant, iso_from_millis(end), skipped)
    messages = log.messages
    first = next((m.content for m in messages if m.role == "user"), None)
    summary = SessionSummary(
        title=first[:80] if first else None,
        workspace_path=cwd,
        message_count=len(messages),
        skipped=dict(skipped.counts),
    )
    return LoadedSession(messages, summary)


def _cwd(user: Mapping[str, Any]) -> str | None:
    env = user.get("env_context")
    state = env.get("env_state") if isinstance(env, Mapping) else None
    return as_str(state.get("current_working_directory")) if isinstance(state, Mapping) else None


def _user(log: MessageLog, msg_id: str, user: Mapping[str, Any], skipped: SkipCounter) -> None:
    content = user.get("content")
    if not isinstance(content, Mapping):
        return
    when = as_str(user.get("timestamp"))
    prompt = content.get("Prompt")
    if isinstance(prompt, Mapping):
        log.user(f"{msg_id}-user", as_str(prompt.get("prompt")) or "", when)
        return
    results = content.get("ToolUseResults") or content.get("CancelledToolUses")
    if isinstance(results, Mapping):
        for result in results.get("tool_use_results") or []:
            if isinstance(result, Mapping):
                _result(log, result, skipped)
        return
    skipped.add("user." + ",".join(sorted(str(k) for k in content)))


def _result(log: MessageLog, result: Mapping[str, Any], skipped: SkipCounter) -> None:
    block = log.tool(as_str(result.get("tool_use_id")) or "")
    if block is None:
        skipped.add("tool_result.orphan")
        return
    pieces: list[str] = []
    for item in result.get("content") or []:
        if isinstance(item, Mapping):
            value = item.get("Text", item.get("Json"))
            text = output_text(value)
            if text:
                pieces.append(text)
    block.output = "\n".join(pieces)
    failed = str(result.get("status", "")).lower() == "error"
    block.status = "failed" if failed else "done"
    block.is_error = failed


def _assistant(
    log: MessageLog,
    msg_id: str,
    assistant: Mapping[str, Any],
    end: str | None,
    skipped: SkipCounter,
) -> None:
    body = assistant.get("Response") or assistant.get("ToolUse")
    if not isinstance(body, Mapping):
        skipped.add("assistant." + ",".join(sorted(str(k) for k in assistant)))
        return
    message = log.assistant(as_str(body.get("message_id")) or f"{msg_id}-assistant")
    message.completed_at = end or message.completed_at
    text = as_str(body.get("content"))
    if text:
        log.add_block(message, TextBlock(text))
    for use in body.get("tool_uses") or []:
        if isinstance(use, Mapping):
            block = running_tool(
                as_str(use.get("id")) or "", as_str(use.get("name")), use.get("args")
            )
            log.add_block(message, block)


class KiroStore(AgentStore):
    runtime = RUNTIME
    append_only = False

    def databases(self) -> list[Path]:
        found: list[Path] = []
        for name, path in self.home.extra:
            if name == "legacyData" and (path / "data.sqlite3").is_file():
                found.append(path / "data.sqlite3")
        return found

    def discover(self) -> Iterator[SessionSource]:
        files = sorted((self.home.root / "sessions" / "cli").glob("*.json"))
        current = {path.stem for path in files}
        for db in self.databases():
            # A conversation in both stores is read from the current one (the files).
            yield from (s for s in self._from_db(db) if s.session_id not in current)
        for path in files:
            yield SessionSource(
                runtime=RUNTIME,
                session_id=path.stem,
                path=path,
                runtime_handle={"sessionId": path.stem},
            )

    def _from_db(self, db: Path) -> Iterator[SessionSource]:
        try:
            conn = _connect(db)
        except sqlite3.Error:
            return
        try:
            tables = _tables(conn)
            if "conversations_v2" in tables:
                rows = conn.execute(
                    "SELECT key, conversation_id, created_at, updated_at FROM conversations_v2"
                ).fetchall()
            elif "conversations" in tables:
                rows = [
                    (key, key, None, None)
                    for (key,) in conn.execute("SELECT key FROM conversations")
                ]
            else:
                rows = []
        except sqlite3.DatabaseError:
            rows = []
        finally:
            conn.close()
        for key, conv, created, updated in rows:
            yield SessionSource(
                runtime=RUNTIME,
                session_id=str(conv),
                path=db,
                runtime_handle={"conversationId": str(conv)},
                workspace_path=as_str(key),
                created_at=iso_from_millis(created),
                updated_at=iso_from_millis(updated),
            )

    def change_marker(self, source: SessionSource) -> object:
        """The SQLite ``-wal`` file's (size, mtime), where a live writer's rows land."""
        return stat_marks([source.path.with_name(source.path.name + "-wal")])

    def load(self, source: SessionSource) -> LoadedSession:
        if source.path.suffix == ".json":
            try:
                if source.path.stat().st_size > MAX_FILE_BYTES:
                    return LoadedSession([], SessionSummary(skipped={"oversized_file": 1}))
                return parse_payload(read_regular_bytes(source.path))
            except FileNotFoundError:
                return LoadedSession([], SessionSummary(status="missing"))
        value: Any = None
        try:
            conn = _connect(source.path)
            try:
                tables = _tables(conn)
                if "conversations_v2" in tables:
                    sql = "SELECT value FROM conversations_v2 WHERE conversation_id = ?"
                else:
                    sql = "SELECT value FROM conversations WHERE key = ?"
                row = conn.execute(sql, (source.session_id,)).fetchone()
            finally:
                conn.close()
            value = row[0] if row else None
        except sqlite3.DatabaseError:
            return LoadedSession([], SessionSummary(skipped={"database_error": 1}))
        if value is None:
            return LoadedSession([], SessionSummary(status="missing"))
        return parse_payload(value)
