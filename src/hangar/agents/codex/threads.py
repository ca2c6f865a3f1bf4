"""Codex's own record of its threads, through the app-server (RW-281).

* :func:`find_started` — ``thread/list {cwd, sourceKinds, sortKey: created_at}``, paged: the
  threads started in a directory at or after a time whose first message (``preview``) begins
  with a given line, oldest first. Every source kind is asked for: a thread hangar started
  is listed as ``vscode``/``appServer``, one of ``codex exec`` only with ``exec``.
* :func:`rollout_path` — ``thread/read {threadId, includeTurns: false}``: the ``path`` of
  the thread's rollout JSONL, as Codex names it (metadata only, no turns hydrated).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hangar.agents.codex.app_server import CodexAppServer

SOURCE_KINDS = ["cli", "vscode", "exec", "appServer", "unknown"]
PAGE = 50
MAX_PAGES = 20
"""At most this many pages are read: a directory's threads since a restart are few."""
REQUEST_TIMEOUT = 30.0


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def find_started(server: CodexAppServer, cwd: Path, title: str, since: float) -> list[str]:
    """Ids of the threads that started in ``cwd`` at or after ``since`` (Unix seconds;
    Codex counts whole seconds) whose first message's first line begins with ``title``,
    oldest first."""
    found: list[tuple[float, str]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {
            "cwd": str(cwd),
            "sourceKinds": SOURCE_KINDS,
            "sortKey": "created_at",
            "sortDirection": "desc",
            "limit": PAGE,
        }
        if cursor:
            params["cursor"] = cursor
        page = server.request("thread/list", params, REQUEST_TIMEOUT)
        older = False
        for thread in page.get("data") or []:
            if not isinstance(thread, dict) or not thread.get("id"):
                continue
            created = thread.get("createdAt")
            if not isinstance(created, int | float) or created < int(since):
                older = True  # newest first: the rest started before ``since``
                continue
            first = _first_line(str(thread.get("preview") or ""))
            if title and first.startswith(title) and str(thread.get("cwd")) == str(cwd):
                found.append((float(created), str(thread["id"])))
        cursor = page.get("nextCursor")
        if older or not cursor:
            break
    return [thread for _, thread in sorted(found)]


def rollout_path(server: CodexAppServer, thread_id: str) -> Path | None:
    """The rollout file of ``thread_id`` as ``thread/read`` names it (``None``: no path)."""
    answer = server.request(
        "thread/read", {"threadId": thread_id, "includeTurns": False}, REQUEST_TIMEOUT
    )
    thread = answer.get("thread")
    path = thread.get("path") if isinstance(thread, dict) else None
    return Path(path) if isinstance(path, str) and path else None
