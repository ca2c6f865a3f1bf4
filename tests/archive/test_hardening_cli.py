"""Issue 12, items 9 and 5 (CLI side): ``hangar tasks restore|purge`` on the odd names a
trash can hold, and on a delete an earlier process left queued. Every error is one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hangar.executor import delete_worker
from hangar.executor.service import Executor

from .tasks import add_task


def hangar(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hangar", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hangar: error: "), done.stderr
    return lines[0]


def test_item_9_restore_of_a_cleanup_entry_restores_and_does_not_crash(
    executor: Executor, hangar_home: Path
) -> None:
    """Item 9: ``tasks restore cleanup-<id>-<hex>`` brings the cleaned files back and ends
    with one line (it used to restore, then crash with a traceback)."""
    folder = hangar_home / "chats" / "chat-c1"
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("draft notes\n")
    add_task(executor.db, "c1", runtime="plain", workspace=str(folder), kind="chat", archived=True)
    done = executor.handle("runtime.tasks.cleanup", {"localTaskIds": ["c1"]})
    trash_id = done["items"][0]["trashId"]
    assert trash_id.startswith("cleanup-c1-") and not (folder / "notes.md").exists()
    restored = hangar("tasks", "restore", trash_id)
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.strip() == "restored the files cleanup removed beside c1 (1 file(s))"
    assert (folder / "notes.md").read_text() == "draft notes\n"
    row = (
        executor.db.read()
        .execute("SELECT deleted_at, archived FROM local_tasks WHERE local_task_id = 'c1'")
        .fetchone()
    )
    assert (row["deleted_at"], row["archived"]) == (None, 1)  # the task itself is untouched


def test_item_9_purge_of_a_name_that_is_no_deleted_task_is_one_line(
    executor: Executor, hangar_home: Path
) -> None:
    """Item 9: ``tasks purge .`` no longer resolves to the worker's lock file in the trash
    (it crashed); it reports that no deleted task has that name."""
    session = hangar_home.parent / "s.jsonl"
    session.write_text('{"x": 1}\n')
    add_task(executor.db, "d1", runtime="plain", source=session)
    delete_worker.request_delete(executor.db, ["d1"])
    executor.deleter.drain()
    assert (hangar_home / "trash" / ".delete-worker.lock").exists()
    for key in (".", ".delete", "no-such-task"):
        line = one_line_error(hangar("tasks", "purge", key))
        assert "deleted task not found" in line, line
    assert (hangar_home / "trash" / "d1" / "manifest.json").exists()


def test_item_5_cli_purge_finishes_a_delete_an_earlier_process_left_queued(
    executor: Executor, hangar_home: Path
) -> None:
    """Item 5 (CLI side): with no hub running, ``tasks purge`` first finishes the queued
    delete a killed process left (it used to answer "still being deleted" forever)."""
    session = hangar_home.parent / "s.jsonl"
    session.write_text('{"x": 1}\n')
    add_task(executor.db, "q1", runtime="plain", source=session)
    delete_worker.request_delete(executor.db, ["q1"])  # phase one only, as if then killed
    purged = hangar("tasks", "purge", "q1")
    assert purged.returncode == 0, purged.stderr
    assert not session.exists() and not (hangar_home / "trash" / "q1").exists()
