"""What each file yielded is stored in ``executor.db``: a new process reads only the files that
changed, and counts exactly what a first count does."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hangar.agents.launch import NoLauncher
from hangar.executor.service import Executor

from .test_usage_rules import _claude_home, _claude_message, _older_codex_home, _write

RESUMED = "99999999-2222-4333-8444-555555555555"


def _resumed_claude(home: Path, extra_output: int = 7) -> Path:
    """A resumed Claude session that replays the parent's ``msg_b`` and adds ``msg_c``: the
    replayed call counts once (in the older session), so this file's calls are read one by one."""
    return _write(
        home / ".claude" / "projects" / "-srv-p" / f"{RESUMED}.jsonl",
        [
            _claude_message("msg_b", "2026-05-12T09:00:04.000Z", 5, "text"),
            _claude_message("msg_c", "2026-05-12T10:00:00.000Z", extra_output, "text"),
        ],
    )


def _count(by: str = "task") -> tuple[dict[str, object], int]:
    executor = Executor.open(launcher=NoLauncher())
    try:
        report = executor.handle("runtime.usage.summary", {"by": by})
        return report, executor.usage.files_read
    finally:
        executor.close()


def test_a_new_process_reads_only_changed_files_and_counts_the_same(
    isolated_home: Path, hangar_home: Path
) -> None:
    _older_codex_home(isolated_home)
    _claude_home(isolated_home)
    resumed = _resumed_claude(isolated_home)
    first, read_first = _count()
    assert read_first == 4  # two Codex rollouts, two Claude sessions
    total = first["total"]
    assert isinstance(total, dict)
    assert total["calls"] == 2 + 2 + 2 + 1  # msg_b, replayed in the resumed session, once

    again, read_again = _count()
    assert read_again == 0 and again == first

    _resumed_claude(isolated_home, extra_output=70)  # the agent wrote again
    assert resumed.stat().st_size > 0
    changed, read_changed = _count()
    assert read_changed == 1
    changed_total = changed["total"]
    assert isinstance(changed_total, dict)
    assert changed_total["totalTokens"] == total["totalTokens"] + 63


def test_a_damaged_stored_body_is_read_again(isolated_home: Path, hangar_home: Path) -> None:
    _older_codex_home(isolated_home)
    _claude_home(isolated_home)
    first, _ = _count("model")
    with sqlite3.connect(hangar_home / "executor.db") as conn:
        conn.execute("UPDATE usage_files SET body = x'c1ff00'")
    again, read_again = _count("model")
    assert read_again == 3 and again == first


def test_a_sub_agents_new_calls_are_counted_although_the_session_file_did_not_change(
    isolated_home: Path, hangar_home: Path
) -> None:
    _claude_home(isolated_home)
    session = isolated_home / ".claude" / "projects" / "-srv-p"
    folder = session / "11111111-2222-4333-8444-555555555555" / "subagents"
    _write(
        folder / "agent-a1.jsonl",
        [_claude_message("msg_s1", "2026-05-12T09:01:00.000Z", 3, "text")],
    )
    first, _ = _count("model")
    _write(
        folder / "agent-a1.jsonl",
        [
            _claude_message("msg_s1", "2026-05-12T09:01:00.000Z", 3, "text"),
            _claude_message("msg_s2", "2026-05-12T09:02:00.000Z", 4, "text"),
        ],
    )
    again, read_again = _count("model")
    assert read_again == 1
    calls = {r["key"]: r["calls"] for r in again["rows"]}  # type: ignore[union-attr]
    assert calls["claude-sonnet-4-5"] == 2 + 2
    assert {r["key"]: r["calls"] for r in first["rows"]}["claude-sonnet-4-5"] == 2 + 1  # type: ignore[union-attr]
