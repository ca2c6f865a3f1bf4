"""Writing ``opencode.db`` files with the schema OpenCode 1.18.33 creates (the tables the
reader uses), in WAL mode like OpenCode, for tests that need shapes no fixture has."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE `session` (
  `id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL,
  `version` text NOT NULL, `share_url` text, `summary_additions` integer,
  `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `metadata` text,
  `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL,
  `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL,
  `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL,
  `revert` text, `permission` text, `agent` text, `model` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  `time_compacting` integer, `time_archived` integer);
CREATE TABLE `message` (
  `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (
  `id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `todo` (
  `session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL,
  `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`));
"""

T0 = 1796017734000


def todo(content: str, status: str = "pending", priority: str = "medium") -> dict[str, str]:
    return {"content": content, "status": status, "priority": priority}


@dataclass
class OpenCodeWriter:
    """Writes sessions the way OpenCode lays them out (ids sortable by time)."""

    path: Path
    clock: int = T0
    seq: int = 0
    conn: sqlite3.Connection = field(init=False)

    def __post_init__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.executescript(SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def _id(self, prefix: str) -> str:
        self.seq += 1
        self.clock += 10
        return f"{prefix}_{self.clock:013d}{self.seq:06d}"

    def session(
        self, title: str = "Demo", parent: str | None = None, directory: str = "/home/user/demo"
    ) -> str:
        sid = self._id("ses")
        self.conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
            "time_created, time_updated) VALUES (?, 'global', ?, 'slug', ?, ?, '1.18.33', ?, ?)",
            (sid, parent, directory, title, self.clock, self.clock),
        )
        return sid

    def message(self, session: str, data: dict[str, Any]) -> str:
        mid = self._id("msg")
        data = {"time": {"created": self.clock, "completed": self.clock + 5}, **data}
        self.conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (mid, session, self.clock, self.clock, json.dumps(data)),
        )
        self.conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (self.clock, session))
        return mid

    def part(self, session: str, message: str, data: dict[str, Any]) -> str:
        pid = self._id("prt")
        self.conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (pid, message, session, self.clock, self.clock, json.dumps(data)),
        )
        return pid

    def user(self, session: str, text: str) -> str:
        mid = self.message(session, {"role": "user", "agent": "build"})
        self.part(session, mid, {"type": "text", "text": text})
        return mid

    def assistant(self, session: str, parent: str, **extra: Any) -> str:
        data = {
            "role": "assistant",
            "parentID": parent,
            "modelID": "fake-model",
            "providerID": "fake",
            "mode": "build",
            **extra,
        }
        return self.message(session, data)

    def tool(
        self,
        session: str,
        message: str,
        tool: str,
        inp: Any,
        status: str = "completed",
        output: str = "",
        metadata: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> str:
        self.seq += 1
        state: dict[str, Any] = {
            "status": status,
            "input": inp,
            "output": output,
            "metadata": metadata or {},
            "time": {"start": self.clock, "end": self.clock + 3},
        }
        if error is not None:
            state["error"] = error
        return self.part(
            session,
            message,
            {"type": "tool", "tool": tool, "callID": f"call_{self.seq:04d}", "state": state},
        )

    def todowrite(
        self, session: str, message: str, todos: Any, status: str = "completed", store: bool = True
    ) -> str:
        """A ``todowrite`` call, and (as OpenCode does) the ``todo`` table's new snapshot."""
        part = self.tool(session, message, "todowrite", {"todos": todos}, status, json.dumps(todos))
        if store and status == "completed":
            self.conn.execute("DELETE FROM todo WHERE session_id = ?", (session,))
            for position, item in enumerate(todos):
                self.conn.execute(
                    "INSERT INTO todo VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        session,
                        item["content"],
                        item["status"],
                        item["priority"],
                        position,
                        self.clock,
                        self.clock,
                    ),
                )
        return part

    def text(self, session: str, message: str, text: str) -> str:
        return self.part(session, message, {"type": "text", "text": text})


def write_turns(path: Path, session: str, turns: int) -> list[float]:
    """Commit ``turns`` request/reply pairs as a separate writer would, each in one short
    ``BEGIN IMMEDIATE`` transaction with no busy timeout (a lock fails at once); return the
    seconds each transaction took."""
    writer = OpenCodeWriter.__new__(OpenCodeWriter)
    writer.path, writer.clock, writer.seq = path, T0 + 60_000, 0
    writer.conn = sqlite3.connect(path, isolation_level=None)
    writer.conn.execute("PRAGMA busy_timeout = 0")
    latencies: list[float] = []
    for n in range(turns):
        started = time.perf_counter()
        writer.conn.execute("BEGIN IMMEDIATE")
        user = writer.user(session, f"turn {n}")
        reply = writer.assistant(session, user)
        writer.todowrite(session, reply, [todo(f"item {n}")])
        writer.text(session, reply, "x" * 2000)
        writer.conn.execute("COMMIT")
        latencies.append(time.perf_counter() - started)
    writer.conn.close()
    return latencies


if __name__ == "__main__":
    import sys

    out = write_turns(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
    print(json.dumps(out))
