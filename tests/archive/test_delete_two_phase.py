"""Two-phase delete: tombstone at once, real delete by one worker, restorable until purge."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from hangar.agents.codex import control as codex_control
from hangar.agents.codex.control import CodexControl
from hangar.agents.control import AgentControl
from hangar.agents.homes import AgentHome
from hangar.errors import NotFoundError, UsageError
from hangar.executor import delete_worker, trash
from hangar.executor.database import ExecutorDatabase
from hangar.executor.delete_worker import DeleteWorker, request_delete

from .tasks import add_task


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _session_file(root: Path, name: str, size: int = 50_000) -> Path:
    path = root / "agent" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(os.urandom(size).hex().encode() + b"\n")
    return path


@pytest.fixture
def db(hangar_home: Path) -> ExecutorDatabase:
    database = ExecutorDatabase(hangar_home / "executor.db")
    yield database
    database.close()


def _visible(db: ExecutorDatabase) -> list[str]:
    rows = db.read().execute(
        "SELECT local_task_id FROM local_tasks WHERE deleted_at IS NULL ORDER BY 1"
    )
    return [r[0] for r in rows]


def test_tombstone_hides_the_task_at_once_and_touches_no_file(
    db: ExecutorDatabase, tmp_path: Path
) -> None:
    """RW-173: delete writes a tombstone first; the files stay until the worker runs."""
    path = _session_file(tmp_path, "a")
    before = _digest(path)
    add_task(db, "a", source=path)
    add_task(db, "b")
    reply = request_delete(db, ["a"])
    assert reply["deleted"] is True and reply["cleanup"] == {"background": True}
    assert _visible(db) == ["b"]
    assert _digest(path) == before
    assert delete_worker.delete_progress(db, reply["batchId"])["byState"] == {"pending": 1}


def test_delete_refuses_running_and_unknown_tasks(db: ExecutorDatabase) -> None:
    add_task(db, "r", status="running")
    with pytest.raises(UsageError):
        request_delete(db, ["r"])
    with pytest.raises(NotFoundError):
        request_delete(db, ["nope"])
    with pytest.raises(UsageError):
        request_delete(db, [])
    assert _visible(db) == ["r"]


def test_worker_moves_files_to_trash_and_restore_gives_every_byte_back(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    """A worker deletes for real; restore brings back identical bytes."""
    path = _session_file(tmp_path, "a")
    sub = path.with_name("a") / "subagents" / "agent-x.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_bytes(b'{"k": 1}\n')
    hashes = {path: _digest(path), sub: _digest(sub)}
    add_task(db, "a", source=path)
    request_delete(db, ["a"])
    trash_root = hangar_home / "trash"
    worker = DeleteWorker(db, trash_root)
    assert worker.drain() == 1
    assert not path.exists() and not sub.exists()
    assert (trash_root / "a" / "manifest.json").exists()
    item = db.read().execute("SELECT state, method FROM delete_queue").fetchone()
    assert tuple(item) == ("done", "trash")
    delete_worker.restore(db, trash_root, "a")
    assert {p: _digest(p) for p in hashes} == hashes
    assert _visible(db) == ["a"]


def test_purge_removes_for_good_and_restore_then_fails(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    path = _session_file(tmp_path, "a")
    add_task(db, "a", source=path)
    add_task(db, "b")
    with pytest.raises(UsageError):
        delete_worker.purge_task(db, hangar_home / "trash", "b")  # not deleted
    request_delete(db, ["a"])
    DeleteWorker(db, hangar_home / "trash").drain()
    delete_worker.purge_task(db, hangar_home / "trash", "a")
    assert not (hangar_home / "trash" / "a").exists()
    with pytest.raises(NotFoundError):
        delete_worker.restore(db, hangar_home / "trash", "a")


_PHASE_ONE = """
import sys
from pathlib import Path
from hangar.executor.database import ExecutorDatabase
from hangar.executor.delete_worker import request_delete
db = ExecutorDatabase(Path(sys.argv[1]))
request_delete(db, sys.argv[2:])
print("queued", flush=True)
sys.stdin.read()
"""

_PHASE_TWO = """
import sys
from pathlib import Path
from hangar.executor.database import ExecutorDatabase
from hangar.executor.delete_worker import DeleteWorker
db = ExecutorDatabase(Path(sys.argv[1]))
stop_after = int(sys.argv[3])
done = []
def progress(state):
    done.append(state)
    print("progress", state["done"], flush=True)
    if len(done) == stop_after:
        sys.stdin.read()
DeleteWorker(db, Path(sys.argv[2])).drain(progress)
print("drained", flush=True)
"""


def _run(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _kill(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL


def test_kill_9_between_and_during_the_phases_loses_nothing(
    hangar_home: Path, tmp_path: Path
) -> None:
    """RW-173, RW-174: a killed foreground or worker loses nothing; the queue resumes."""
    db_path = hangar_home / "executor.db"
    db = ExecutorDatabase(db_path)
    paths = {name: _session_file(tmp_path, name) for name in ("a", "b", "c")}
    hashes = {p: _digest(p) for p in paths.values()}
    for name, path in paths.items():
        add_task(db, name, source=path)
    db.close()

    # Phase one, then kill -9 before any worker ran.
    first = _run(_PHASE_ONE, str(db_path), "a", "b", "c")
    assert first.stdout is not None and first.stdout.readline().strip() == "queued"
    _kill(first)
    db = ExecutorDatabase(db_path)
    assert _visible(db) == []
    assert all(p.exists() and _digest(p) == h for p, h in hashes.items())
    assert delete_worker.delete_progress(db)["byState"] == {"pending": 3}

    # Phase two: a worker is killed after its first item.
    trash_root = hangar_home / "trash"
    worker = _run(_PHASE_TWO, str(db_path), str(trash_root), "1")
    assert worker.stdout is not None and worker.stdout.readline().split() == ["progress", "1"]
    _kill(worker)
    assert delete_worker.delete_progress(db)["byState"] == {"done": 1, "pending": 2}

    # A new worker resumes with the rest.
    resumed = _run(_PHASE_TWO, str(db_path), str(trash_root), "0")
    out, _ = resumed.communicate(timeout=60)
    assert out.split()[-1] == "drained"
    assert delete_worker.delete_progress(db)["byState"] == {"done": 3}
    assert not any(p.exists() for p in paths.values())

    for name in paths:
        delete_worker.restore(db, trash_root, name)
    assert {p: _digest(p) for p in paths.values()} == hashes
    assert _visible(db) == ["a", "b", "c"]
    db.close()


def test_two_workers_never_work_on_one_item(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    """Two workers draining one queue never work on one item twice (attempts stay 1); that
    they also never overlap is checked by the test above (RW-174)."""
    paths = {f"t{n}": _session_file(tmp_path, f"t{n}", 20_000) for n in range(12)}
    hashes = {p: _digest(p) for p in paths.values()}
    for name, path in paths.items():
        add_task(db, name, source=path)
    request_delete(db, list(paths))
    trash_root = hangar_home / "trash"
    workers = [DeleteWorker(db, trash_root), DeleteWorker(db, trash_root)]
    threads = [threading.Thread(target=w.drain) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    progress = delete_worker.delete_progress(db)
    assert progress["byState"] == {"done": 12}
    attempts = db.read().execute("SELECT max(attempts) FROM delete_queue").fetchone()[0]
    assert attempts == 1
    for name in paths:
        delete_worker.restore(db, trash_root, name)
    assert {p: _digest(p) for p in paths.values()} == hashes


class ScriptedCodex:
    """A launcher whose ``codex`` is a Python script speaking the app-server's JSON-RPC (a
    stand-in for app-server behaviours the real CLI cannot be made to show on demand)."""

    def __init__(self, script: str, *args: str) -> None:
        self.argv = [sys.executable, "-c", script, *args]
        self.processes: list[subprocess.Popen[bytes]] = []

    def which(self, executable: str) -> str | None:
        return sys.executable if executable == "codex" else None

    def launch(
        self,
        executable: str,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen[bytes] | None:
        if executable != "codex":
            return None
        process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def connect(self, port: int, timeout: float = 10.0) -> socket.socket:
        raise ConnectionRefusedError(port)

    def controls(self, home: Path) -> Callable[[str], AgentControl | None]:
        """The executor's control opener over this launcher (Codex only)."""

        def open_control(runtime: str) -> AgentControl | None:
            if runtime != "codex":
                return None
            return CodexControl(AgentHome("codex", home, None), self)

        return open_control


_HANGING_CODEX = """
import json, sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        print(json.dumps({"id": msg["id"], "result": {}}), flush=True)
    elif msg.get("method") == "thread/delete":
        log.write("delete\\n"); log.flush()  # and never answers (codex bug #41645)
"""


_SLOW_CODEX = """
import json, os, sys, time
log = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        print(json.dumps({"id": msg["id"], "result": {}}), flush=True)
    elif msg.get("method") == "thread/delete":
        with open(log, "a") as out:
            out.write(f"start {msg['params']['threadId']}\\n")
        time.sleep(0.3)  # a slow delete: any other worker would now overlap it
        with open(log, "a") as out:
            out.write(f"end {msg['params']['threadId']}\\n")
        print(json.dumps({"id": msg["id"], "result": {}}), flush=True)
"""


def test_deletes_run_one_item_at_a_time_across_workers(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    """RW-174: two workers (a CLI and a hub) drain one queue; the agent sees its deletes one
    after the other (each ``end`` before the next ``start``), never two at once."""
    calls = tmp_path / "calls.log"
    names = [f"c{n}" for n in range(4)]
    for name in names:
        add_task(db, name, runtime="codex", source=_session_file(tmp_path, name),
                 handle={"threadId": f"thread-{name}"})  # fmt: skip
    request_delete(db, names)
    trash_root = hangar_home / "trash"
    workers = [
        DeleteWorker(db, trash_root, ScriptedCodex(_SLOW_CODEX, str(calls)).controls(tmp_path))
        for _ in range(2)
    ]
    threads = [threading.Thread(target=w.drain) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    events = calls.read_text().split()
    pairs = list(zip(events[0::2], events[1::2], strict=True))
    assert [kind for kind, _ in pairs] == ["start", "end"] * 4
    starts, ends = events[1::4], events[3::4]
    assert starts == ends and sorted(starts) == [f"thread-{n}" for n in names]
    assert delete_worker.delete_progress(db)["byState"] == {"done": 4}


def test_a_hanging_thread_delete_is_not_stacked_and_loses_nothing(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RW-175/RW-176: one thread/delete at a time; a time-out ends that server, no stacking."""
    monkeypatch.setattr(codex_control, "DELETE_TIMEOUT", 0.5)
    calls = tmp_path / "calls.log"
    codex = ScriptedCodex(_HANGING_CODEX, str(calls))

    paths = {n: _session_file(tmp_path, n) for n in ("c1", "c2")}
    hashes = {p: _digest(p) for p in paths.values()}
    for name, path in paths.items():
        add_task(db, name, runtime="codex", source=path, handle={"threadId": f"thread-{name}"})
    request_delete(db, list(paths))
    DeleteWorker(db, hangar_home / "trash", codex.controls(tmp_path / "codex")).drain()
    states = db.read().execute("SELECT state FROM delete_queue").fetchall()
    assert [s[0] for s in states] == ["failed", "failed"]
    servers = codex.processes
    assert calls.read_text().count("delete") == 2 and len(servers) == 2  # one per server
    assert all(process.returncode is not None for process in servers)  # each one ended
    assert {p: _digest(p) for p in paths.values()} == hashes  # originals untouched


def test_a_failed_phase_two_is_retried_by_deleting_again(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    path = _session_file(tmp_path, "a")
    add_task(db, "a", source=path)
    request_delete(db, ["a"])
    blocker = hangar_home / "trash" / "a"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("a file where the trash entry's folder should go\n")
    DeleteWorker(db, hangar_home / "trash").drain()
    state, error = db.read().execute("SELECT state, error FROM delete_queue").fetchone()
    assert state == "failed" and error
    assert path.exists()  # nothing moved
    blocker.unlink()
    request_delete(db, ["a"])
    DeleteWorker(db, hangar_home / "trash").drain()
    assert db.read().execute("SELECT state FROM delete_queue").fetchone()[0] == "done"
    assert not path.exists()


_OLD_CODEX = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        print(json.dumps({"id": msg["id"], "result": {}}), flush=True)
    elif "id" in msg:
        error = {"code": -32600, "message": "Invalid request: unknown variant `thread/delete`"}
        print(json.dumps({"id": msg["id"], "error": error}), flush=True)
"""


def test_codex_without_thread_delete_falls_back_to_the_trash(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    """RW-162 feature detection: an app-server without thread/delete gets the file moved."""
    path = _session_file(tmp_path, "c")
    digest = _digest(path)
    add_task(db, "c", runtime="codex", source=path, handle={"threadId": "thread-c"})
    request_delete(db, ["c"])

    codex = ScriptedCodex(_OLD_CODEX)
    DeleteWorker(db, hangar_home / "trash", codex.controls(tmp_path / "codex")).drain()
    assert db.read().execute("SELECT state, method FROM delete_queue").fetchone()[:] == (
        "done",
        "trash",
    )
    assert not path.exists()
    delete_worker.restore(db, hangar_home / "trash", "c")
    assert _digest(path) == digest


def test_an_item_left_running_by_a_crash_is_finished_first(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    """A worker killed mid-move left the item `running` and half its files in the trash."""
    first = _session_file(tmp_path, "a")
    second = first.with_name("a") / "subagents" / "agent-1.jsonl"
    second.parent.mkdir(parents=True)
    second.write_bytes(b'{"sub": true}\n')
    hashes = {first: _digest(first), second: _digest(second)}
    add_task(db, "a", source=first)
    add_task(db, "b", source=_session_file(tmp_path, "b"))
    request_delete(db, ["b"])
    request_delete(db, ["a"])
    trash_root = hangar_home / "trash"
    # The crashed worker's state: manifest written, the first file moved, item `running`.
    manifest = trash.move_to_trash(trash_root, "a", [first, second], {"localTaskId": "a"})
    (trash_root / "a" / manifest["files"][1]["stored"]).rename(second)
    manifest["state"] = "moving"
    (trash_root / "a" / "manifest.json").write_text(json.dumps(manifest))
    with db.write() as conn:
        conn.execute(
            "UPDATE delete_queue SET state = 'running', attempts = 1 WHERE local_task_id = 'a'"
        )
    worker = DeleteWorker(db, trash_root)
    assert worker.next_item()["local_task_id"] == "a"  # before the older pending item
    worker.drain()
    assert not first.exists() and not second.exists()
    delete_worker.restore(db, trash_root, "a")
    assert {p: _digest(p) for p in hashes} == hashes


def test_a_copy_whose_original_codex_already_deleted_is_kept(
    db: ExecutorDatabase, hangar_home: Path, tmp_path: Path
) -> None:
    """Crash after Codex's thread/delete, resumed without an app-server: the copy stays."""
    path = _session_file(tmp_path, "c")
    digest = _digest(path)
    add_task(db, "c", runtime="codex", source=path, handle={"threadId": "thread-c"})
    request_delete(db, ["c"])
    trash_root = hangar_home / "trash"
    trash.move_to_trash(trash_root, "c", [path], {"localTaskId": "c"}, keep_original=True)
    path.unlink()  # what Codex's thread/delete did before the crash
    DeleteWorker(db, trash_root).drain()
    assert db.read().execute("SELECT state FROM delete_queue").fetchone()[0] == "done"
    delete_worker.restore(db, trash_root, "c")
    assert _digest(path) == digest
