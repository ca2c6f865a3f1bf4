"""OpenCode: sessions in ``opencode.db`` (SQLite, v1.2+) or the legacy JSON storage tree.

Both are rewritten in place, so the store is signature-based (``append_only = False``):
the engine calls :meth:`OpenCodeStore.load` again when :meth:`OpenCodeStore.signature`
changes. Child sessions (``parent_id``, the ``task`` tool's sub-agents) are discovered with
``parent_session_id`` set and are read only as part of their parent (CL-036).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from hangar.agents.base import AgentStore, LoadedSession, SessionSource, SessionSummary
from hangar.agents.json_fields import JsonObject, as_map, as_str
from hangar.agents.json_records import SkipCounter
from hangar.agents.opencode import json_store, sqlite_store
from hangar.agents.opencode.project import RawSession, project_session
from hangar.agents.peek import stat_marks
from hangar.agents.timestamps import iso_from_millis

RUNTIME = "opencode"


def _is_sqlite(path: Path) -> bool:
    return path.suffix == ".db"


class OpenCodeStore(AgentStore):
    runtime = RUNTIME
    append_only = False

    def databases(self) -> list[Path]:
        """``opencode.db`` and channel databases (``opencode-<channel>.db``)."""
        root = self.home.root
        found = [root / "opencode.db"] if (root / "opencode.db").is_file() else []
        found += sorted(p for p in root.glob("opencode-*.db") if p.is_file())
        return found

    def discover(self) -> Iterator[SessionSource]:
        seen: set[str] = set()
        for db in self.databases():
            try:
                infos = sqlite_store.list_sessions(db)
            except sqlite3.DatabaseError:
                continue
            for row in infos:
                seen.add(row["id"])
                yield self._source(row, db)
        storage = self.home.root / "storage"
        for file in json_store.session_files(storage):
            info = json_store.read_session_info(file, SkipCounter())
            # After the migration to SQLite the JSON copy is stale: the database wins.
            if info is not None and info["id"] not in seen:
                yield self._source(info, file)

    def _source(self, info: JsonObject, path: Path) -> SessionSource:
        times = as_map(info.get("time"))
        return SessionSource(
            runtime=RUNTIME,
            session_id=info["id"],
            path=path,
            runtime_handle={"sessionId": info["id"]},
            title=as_str(info.get("title")),
            workspace_path=as_str(info.get("directory")),
            created_at=iso_from_millis(times.get("created")),
            updated_at=iso_from_millis(times.get("updated")),
            archived=bool(times.get("archived")),
            model=as_str(info.get("modelID")),
            parent_session_id=as_str(info.get("parentID")),
        )

    def change_marker(self, source: SessionSource) -> object:
        """The database's WAL (where a running OpenCode writes) or, for the JSON tree, the
        session's message folder and todo file: (size, mtime) of each."""
        paths: list[Path] = []
        if _is_sqlite(source.path):
            paths.append(source.path.with_name(source.path.name + "-wal"))
        else:
            storage = source.path.parents[2]
            paths += [
                storage / "message" / source.session_id,
                storage / "todo" / f"{source.session_id}.json",
            ]
        return stat_marks(paths)

    def load(self, source: SessionSource) -> LoadedSession:
        raw: RawSession | None
        if _is_sqlite(source.path):
            try:
                raw = sqlite_store.load_session(source.path, source.session_id)
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise
                raw = _unreadable(source, "database_error")
            except sqlite3.DatabaseError:
                raw = _unreadable(source, "database_error")
        else:
            raw = json_store.load_session(source.path)
        if raw is None:
            return LoadedSession([], SessionSummary(status="missing"))
        messages, summary = project_session(raw)
        return LoadedSession(messages, summary)


def _unreadable(source: SessionSource, reason: str) -> RawSession:
    raw = RawSession(source.session_id, {"id": source.session_id})
    raw.skipped.add(reason)
    return raw
