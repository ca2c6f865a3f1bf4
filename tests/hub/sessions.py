"""Real Claude Code session files for hub tests, written where Claude itself keeps them.

The lines follow Claude Code's on-disk JSONL format (user/assistant records with ``uuid``,
``sessionId``, ``cwd``, ``timestamp``, ``message``); tests then read them through the real
executor, the real hub and, in browser tests, a real browser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BASE_TIME = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def claude_project_dir(home: Path, cwd: str) -> Path:
    return home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd)


@dataclass
class ClaudeSession:
    """Builds one session file; every ``add_*`` appends lines (and writes them out)."""

    home: Path
    session_id: str
    cwd: str
    start: datetime = BASE_TIME
    lines: int = 0
    _parent: str | None = None
    _tool: int = 0
    _written: list[str] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return claude_project_dir(self.home, self.cwd) / f"{self.session_id}.jsonl"

    def _stamp(self) -> str:
        moment = self.start + timedelta(seconds=10 * self.lines)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _append(self, kind: str, message: dict[str, Any]) -> None:
        uuid = f"{self.session_id}-{self.lines:05d}"
        record = {
            "type": kind,
            "uuid": uuid,
            "parentUuid": self._parent,
            "sessionId": self.session_id,
            "timestamp": self._stamp(),
            "cwd": self.cwd,
            "isSidechain": False,
            "userType": "external",
            "version": "2.0.0",
            "message": message,
        }
        self._parent = uuid
        self.lines += 1
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def user(self, text: str) -> ClaudeSession:
        self._append("user", {"role": "user", "content": text})
        return self

    def user_blocks(self, content: list[dict[str, Any]]) -> ClaudeSession:
        """A user message of typed content blocks (text, image …), as Claude writes them."""
        self._append("user", {"role": "user", "content": content})
        return self

    def assistant(self, text: str) -> ClaudeSession:
        self._append(
            "assistant",
            {
                "id": f"msg_{self.lines}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        )
        return self

    def tool(self, name: str, tool_input: dict[str, Any], output: str) -> ClaudeSession:
        self._tool += 1
        tool_id = f"toolu_{self.session_id}_{self._tool}"
        self._append(
            "assistant",
            {
                "id": f"msg_{self.lines}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
                "stop_reason": "tool_use",
            },
        )
        self._append(
            "user",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}],
            },
        )
        return self

    def todos(self, items: list[tuple[str, str]]) -> ClaudeSession:
        todos = [{"content": c, "status": s, "activeForm": c} for c, s in items]
        return self.tool("TodoWrite", {"todos": todos}, "Todos have been modified successfully")

    def turns(self, count: int, prefix: str = "Question") -> ClaudeSession:
        for n in range(count):
            self.user(f"{prefix} {n}: what about item {n}?")
            self.assistant(f"Answer {n}: item {n} is fine.")
        return self


def sample_home(home: Path) -> dict[str, ClaudeSession]:
    """Three sessions: a long one with tools and a checklist, a short one, a worktree one."""
    long = ClaudeSession(home, "11111111-aaaa-4aaa-8aaa-000000000001", "/srv/projects/alpha")
    long.user("Set up the project").todos([("Read the code", "in_progress"), ("Ship", "pending")])
    long.tool("Bash", {"command": "ls -la"}, "total 0\nREADME.md")
    long.assistant("Project set up.")
    long.turns(70, prefix="Question")
    long.user("zebra-needle appears only here").todos(
        [("Read the code", "completed"), ("Write the tests", "in_progress"), ("Ship", "pending")]
    )
    long.assistant("Found the zebra.")
    short = ClaudeSession(
        home,
        "22222222-bbbb-4bbb-8bbb-000000000002",
        "/srv/projects/beta",
        start=BASE_TIME + timedelta(hours=1),
    )
    short.user("Say hello").assistant("Hello!")
    worktree = ClaudeSession(
        home,
        "33333333-cccc-4ccc-8ccc-000000000003",
        "/srv/projects/alpha/.claude/worktrees/feature-x",
        start=BASE_TIME + timedelta(hours=2),
    )
    worktree.user("Work on feature x").assistant("Done with x.")
    return {"long": long, "short": short, "worktree": worktree}
