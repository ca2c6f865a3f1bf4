"""The task list is rescanned once per change and rebuilt once per revision, never per request.

Real ``executor.db``, real session files, a real inotify watcher (``watchfiles``); threads are
real threads. Waiting for the watcher polls for the state a user would see, with a deadline.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hangar.agents.launch import NoLauncher
from hangar.executor.database import ExecutorDatabase
from hangar.executor.rescan import RescanGate
from hangar.executor.service import Executor
from hangar.executor.watcher import SessionWatcher

from .test_executor_tasks import THREAD, write_rollout
from .test_transcript_engine import codex_turn


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


@pytest.fixture
def executor(isolated_home: Path) -> Executor:
    return Executor.open(launcher=NoLauncher())  # no agent CLI runs outside the sandbox


# -- the gate ---------------------------------------------------------------------------------
def test_concurrent_callers_share_scans() -> None:
    """Twenty callers at once: each is answered by a scan that started after it arrived, and
    together they cost at most two scans."""
    gate = RescanGate()
    started = threading.Event()
    release = threading.Event()
    scans: list[float] = []

    def slow_scan() -> None:
        scans.append(time.monotonic())
        started.set()
        release.wait(10)

    first = threading.Thread(target=gate.run, args=(slow_scan,))
    first.start()
    started.wait(10)
    arrived = time.monotonic()
    waiters = [threading.Thread(target=gate.run, args=(slow_scan,)) for _ in range(19)]
    for thread in waiters:
        thread.start()
    wait_for(lambda: gate.requests == 20)  # all 19 asked while the first scan runs
    release.set()
    for thread in (first, *waiters):
        thread.join(10)
    assert gate.scans == 2
    assert scans[1] >= arrived  # the waiters were served by a scan that began after them


def test_a_watched_gate_scans_only_after_a_change() -> None:
    gate = RescanGate()
    calls: list[int] = []
    gate.watching(True)
    assert gate.run(lambda: calls.append(1))  # arming marks it dirty: one scan
    assert not gate.run(lambda: calls.append(1))
    assert not gate.run(lambda: calls.append(1))
    gate.changed()
    assert gate.run(lambda: calls.append(1))
    assert gate.run(lambda: calls.append(1), force=True)
    stale = [True]
    gate.watching(True, probe=lambda: stale[0])
    gate.run(lambda: None)
    assert gate.run(lambda: calls.append(1))  # the probe says the watch is out of date
    gate.watching(False)
    assert gate.run(lambda: calls.append(1)) and gate.run(lambda: calls.append(1))
    assert len(calls) == 6


def test_a_failed_scan_leaves_the_gate_dirty() -> None:
    gate = RescanGate()
    gate.watching(True)

    def broken() -> None:
        raise OSError("disk went away")

    with pytest.raises(OSError):
        gate.run(broken)
    assert gate.run(lambda: None)


# -- the revision -----------------------------------------------------------------------------
def test_list_revision_moves_with_every_change_to_the_list(
    isolated_home: Path, executor: Executor
) -> None:
    write_rollout(isolated_home)
    first = executor.handle("runtime.tasks.list", {})
    task_id = first["tasks"][0]["localTaskId"]
    same = executor.handle("runtime.tasks.list", {"ifRevision": first["revision"]})
    assert same == {"tasks": [], "revision": first["revision"], "unchanged": True}

    executor.handle("runtime.tasks.archive", {"localTaskId": task_id})
    archived = executor.handle("runtime.tasks.list", {"ifRevision": first["revision"]})
    assert archived["revision"] != first["revision"] and archived["tasks"] == []

    # Another process writing the same executor.db (a CLI command while `hangar serve` runs).
    other = ExecutorDatabase(executor.settings.paths.executor_db)
    with other.write() as conn:
        conn.execute("UPDATE local_tasks SET archived_override = 0")
    other.close()
    back = executor.handle("runtime.tasks.list", {"ifRevision": archived["revision"]})
    assert back["revision"] != archived["revision"]
    assert [t["localTaskId"] for t in back["tasks"]] == [task_id]


def test_an_unchanged_list_is_not_rebuilt(isolated_home: Path, executor: Executor) -> None:
    write_rollout(isolated_home)
    one = executor.listed()
    two = executor.listed()
    assert two[1] is one[1]  # built once for this revision, shared
    write_rollout(isolated_home, thread=THREAD.replace("3724", "9999"))
    three = executor.listed()
    assert len(three[1]) == 2 and three[0] != one[0]


def test_a_vanished_agent_home_marks_its_tasks_missing(
    isolated_home: Path, executor: Executor
) -> None:
    """A store whose home is gone is still listed while it has tasks, so they go missing."""
    write_rollout(isolated_home)
    assert executor.handle("runtime.tasks.list", {})["tasks"][0]["status"] == "done"
    shutil.rmtree(isolated_home / ".codex")
    fresh = Executor.open(launcher=NoLauncher())  # a new process: the Codex store is not open yet
    assert fresh.handle("runtime.tasks.list", {})["tasks"][0]["status"] == "missing"


# -- the watcher --------------------------------------------------------------------------------
def test_under_the_watcher_lists_rescan_once_per_change(
    isolated_home: Path, executor: Executor
) -> None:
    path = write_rollout(isolated_home, turns=1)
    events: list[dict[str, object]] = []
    watcher = SessionWatcher(
        executor.device.device_id,
        executor.stores.homes(),
        executor.settings.paths.home,
        lambda _name, payload: events.append(payload),
        gate=executor.rescans,
    )
    watcher.start()
    try:
        wait_for(lambda: executor.rescans.watched)
        # Once live, the watcher says the homes may have changed while it was starting.
        assert events == [{"deviceId": executor.device.device_id, "paths": [str(path.parents[4])]}]
        events.clear()
        executor.handle("runtime.tasks.list", {})  # the scan that arming asks for
        scans = executor.rescans.scans
        for _ in range(20):
            executor.handle("runtime.tasks.list", {})
        assert executor.rescans.scans == scans  # nothing changed: no rescan at all

        with path.open("ab") as handle:
            handle.write(codex_turn(2))
        wait_for(lambda: bool(events))
        after = executor.handle("runtime.tasks.list", {})
        assert executor.rescans.scans == scans + 1
        assert after["tasks"][0]["updatedAt"] == "2026-01-01T00:00:02Z"

        # An agent home that appears is listed at once, before the watcher restarts on it.
        claude = isolated_home / ".claude" / "projects" / "-srv-p"
        claude.mkdir(parents=True)
        (claude / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl").write_text(
            '{"type":"user","sessionId":"5c0375b4-57a5-4f26-b12d-d022ee4e51b7","cwd":"/srv/p",'
            '"timestamp":"2026-01-02T00:00:00Z","message":{"role":"user","content":"hi"}}\n'
        )
        runtimes = {t["runtime"] for t in executor.handle("runtime.tasks.list", {})["tasks"]}
        assert runtimes == {"codex", "claude"}
    finally:
        watcher.stop()
        watcher.join(10)
    assert not executor.rescans.watched
