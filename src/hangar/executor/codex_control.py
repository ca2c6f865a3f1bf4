"""Codex lifecycle operations through Codex's own interfaces (RW-162, RW-163, RW-169..172).

:class:`CodexControl` opens ``codex app-server`` on demand (only when a ``codex`` executable is
installed; :func:`default_codex_factory`) and keeps one process for a batch of operations.
Every operation returns what happened; callers record it in the LocalTask index.

* ``archive`` → ``thread/archive`` (Codex moves the rollout to ``archived_sessions/``). On the
  exact error ``no rollout found for thread id`` the thread is stale: ``thread/delete`` removes
  the leftover record and the result says ``missing_rollout`` — never "archived" (RW-172).
* ``unarchive`` → ``thread/unarchive`` (the rollout goes back under ``sessions/``).
* ``rename`` → ``thread/name/set``; without an app-server, one line appended to
  ``$CODEX_HOME/session_index.jsonl`` exactly as Codex writes it (append-only, last one wins).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from hangar.agents.codex_appserver import AppServerError, CodexAppServer, find_codex

AppServerFactory = Callable[[], CodexAppServer | None]
Outcome = Literal["done", "missing_rollout", "unavailable"]


def default_codex_factory(environ: Mapping[str, str] | None = None) -> AppServerFactory:
    """Start ``codex app-server`` from ``PATH`` when Codex is installed, else return None."""

    def start() -> CodexAppServer | None:
        executable = find_codex(environ)
        if executable is None:
            return None
        server = CodexAppServer([executable, "app-server"], env=environ)
        server.start()
        return server

    return start


@dataclass
class CodexResult:
    outcome: Outcome
    result: dict[str, Any]


class CodexControl:
    """One lazily started app-server for a batch of operations; :meth:`close` ends it."""

    def __init__(self, factory: AppServerFactory | None) -> None:
        self.factory = factory
        self._server: CodexAppServer | None = None
        self._tried = False

    def server(self) -> CodexAppServer | None:
        if not self._tried and self.factory is not None:
            self._tried = True
            self._server = self.factory()
        return self._server

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def __enter__(self) -> CodexControl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, thread_id: str, **extra: Any) -> CodexResult:
        server = self.server()
        if server is None:
            return CodexResult("unavailable", {})
        try:
            return CodexResult("done", server.request(method, {"threadId": thread_id, **extra}))
        except AppServerError as exc:
            if not exc.is_missing_rollout:
                raise
        if method == "thread/archive":
            try:
                server.request("thread/delete", {"threadId": thread_id}, timeout=120)
            except AppServerError as exc:
                if not (exc.is_missing_rollout or exc.is_unknown_method):
                    raise
        return CodexResult("missing_rollout", {})

    def archive(self, thread_id: str) -> CodexResult:
        return self._call("thread/archive", thread_id)

    def unarchive(self, thread_id: str) -> CodexResult:
        return self._call("thread/unarchive", thread_id)

    def rename(self, thread_id: str, name: str, codex_home: Path) -> CodexResult:
        done = self._call("thread/name/set", thread_id, name=name)
        if done.outcome != "unavailable":
            return done
        append_session_name(codex_home, thread_id, name)
        return CodexResult("done", {"via": "session_index.jsonl"})


def append_session_name(codex_home: Path, thread_id: str, name: str) -> None:
    """Append ``{"id", "thread_name", "updated_at"}`` to Codex's name index (one write)."""
    stamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    line = json.dumps({"id": thread_id, "thread_name": name, "updated_at": stamp})
    codex_home.mkdir(parents=True, exist_ok=True)
    path = codex_home / "session_index.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        prefix = b""
        size = os.fstat(fd).st_size
        if size:
            with path.open("rb") as handle:
                handle.seek(size - 1)
                if handle.read(1) != b"\n":
                    prefix = b"\n"  # never glue our line onto a partial one
        os.write(fd, prefix + line.encode() + b"\n")
    finally:
        os.close(fd)


def locate_rollout(codex_home: Path, file_name: str, archived: bool) -> Path | None:
    """Where Codex keeps rollout ``file_name`` now (after an archive or unarchive)."""
    if archived:
        candidate = codex_home / "archived_sessions" / file_name
        return candidate if candidate.is_file() else None
    sessions = codex_home / "sessions"
    if not sessions.is_dir():
        return None
    for found in sessions.glob(f"*/*/*/{file_name}"):
        if found.is_file():
            return found
    return None
