"""A real executor, a real git repository, and Codex sessions in Codex 0.171's own format.

``agent_turn`` plays what an agent does in one turn: it writes the new file contents into the
workspace and returns the ``changes`` map Codex records for that patch (``add``/``delete``
with the content, ``update`` with a unified diff, ``move_path`` for a rename).
"""

from __future__ import annotations

import difflib
import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hangar.agents.launch import NoLauncher
from hangar.executor.service import Executor


@pytest.fixture
def executor(isolated_home: Path) -> Iterator[Executor]:
    ex = Executor.open(launcher=NoLauncher())
    yield ex
    ex.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    repo = tmp_path / "projects" / "shop"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "cart.py").write_text("def total(items):\n    return sum(items)\n\n\nTAX = 0\n")
    (repo / "README.md").write_text("# shop\n\nA small shop.\n")
    (repo / "legacy.txt").write_text("old notes\nmore old notes\n")
    (repo / "name.txt").write_text("before the move\nsecond line\n")
    return repo


def _hunks(old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(True), new.splitlines(True), n=1)
    return "".join(list(lines)[2:])  # Codex records the hunks without ---/+++ headers


def agent_turn(
    workspace: Path, edits: dict[str, str | None], moves: dict[str, str] | None = None
) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for name, new in edits.items():
        path = workspace / name
        old = path.read_text() if path.exists() else None
        if new is None:
            changes[str(path)] = {"type": "delete", "content": old}
            path.unlink()
        elif old is None:
            changes[str(path)] = {"type": "add", "content": new}
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new)
        else:
            changes[str(path)] = {"type": "update", "unified_diff": _hunks(old, new),
                                  "move_path": None}  # fmt: skip
            path.write_text(new)
    for name, target in (moves or {}).items():
        source, dest = workspace / name, workspace / target
        text = source.read_text()
        moved = text + "added while moving\n"
        changes[str(source)] = {"type": "update", "unified_diff": _hunks(text, moved),
                                "move_path": str(dest)}  # fmt: skip
        source.unlink()
        dest.write_text(moved)
    return changes


def write_rollout(home: Path, cwd: Path, turns: list[tuple[str, dict[str, Any] | None]]) -> str:
    """A Codex rollout: one turn per ``(turn_id, changes)``; returns the thread id."""
    thread = str(uuid.uuid4())
    folder = home / ".codex" / "sessions" / "2026" / "06" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = "2026-06-01T10:00:00.000Z"
    records: list[dict[str, Any]] = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "cwd": str(cwd), "cli_version": "0.171.0"}},
    ]  # fmt: skip
    for number, (turn, changes) in enumerate(turns):
        call = f"call_{number}"
        records += [
            {"timestamp": stamp, "type": "event_msg",
             "payload": {"type": "task_started", "turn_id": turn}},
            {"timestamp": stamp, "type": "event_msg",
             "payload": {"type": "user_message", "message": f"request {number}"}},
            {"timestamp": stamp, "type": "response_item",
             "payload": {"type": "function_call", "name": "exec_command", "call_id": call,
                         "arguments": json.dumps({"cmd": "apply_patch <<'EOF' …"})}},
        ]  # fmt: skip
        if changes is not None:
            records.append(
                {"timestamp": stamp, "type": "event_msg",
                 "payload": {"type": "item_completed", "turn_id": turn,
                             "item": {"type": "FileChange", "id": call, "changes": changes,
                                      "status": "completed"}}}
            )  # fmt: skip
        records += [
            {"timestamp": stamp, "type": "response_item",
             "payload": {"type": "function_call_output", "call_id": call, "output": "Success"}},
            {"timestamp": stamp, "type": "response_item",
             "payload": {"type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": f"done {number}"}]}},
            {"timestamp": stamp, "type": "event_msg",
             "payload": {"type": "task_complete", "turn_id": turn}},
        ]  # fmt: skip
    path = folder / f"rollout-2026-06-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return thread
