"""Issue 12, items 2 and 3: hostile entries in an agent home never wedge discovery, the
list or the session watcher. Each test is named after the item it guards."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hangar.agents.base import SessionSource
from hangar.agents.claude import ClaudeStore
from hangar.agents.homes import AgentHome
from hangar.errors import HangarError
from hangar.executor.service import Executor
from hangar.regular_files import NotARegularFile, open_regular

from .test_executor_tasks import write_claude, write_rollout

HANG = 20.0
"""Seconds after which a call counts as hung (the fixed code answers in milliseconds; the
old code never did: ``open()`` of a FIFO waits for a writer forever)."""


def within(seconds: float, work: Any) -> Any:
    result: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "hung"
    if errors:
        raise errors[0]
    return result[0]


def hostile_entries(folder: Path, prefix: str = "") -> list[Path]:
    """A FIFO, a socket and (where allowed) a character device, each named like a session."""
    fifo = folder / f"{prefix}fifo-5c0375b4-0000-4000-8000-000000000001.jsonl"
    os.mkfifo(fifo)
    made = [fifo]
    sock_path = folder / f"{prefix}s.jsonl"
    here = Path.cwd()
    os.chdir(folder)  # a socket's address is limited to ~100 characters: bind relatively
    try:
        server = socket.socket(socket.AF_UNIX)
        server.bind(sock_path.name)
        server.close()
    finally:
        os.chdir(here)
    made.append(sock_path)
    device = folder / f"{prefix}dev-5c0375b4-0000-4000-8000-000000000002.jsonl"
    try:
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # like /dev/null
        made.append(device)
    except PermissionError:
        pass  # not root: FIFO and socket still make the point
    return made


@pytest.fixture
def executor(isolated_home: Path) -> Iterator[Executor]:
    opened = Executor.open()
    yield opened
    opened.close()


def test_item_2_fifo_socket_and_device_named_jsonl_are_skipped(
    isolated_home: Path, executor: Executor, caplog: pytest.LogCaptureFixture
) -> None:
    """Item 2: a FIFO (socket, device) named ``*.jsonl`` beside real sessions neither wedges
    discovery nor hides them, and is reported once, not on every list."""
    real = write_claude(isolated_home)
    codex_folder = write_rollout(isolated_home).parent
    hostile = hostile_entries(real.parent) + hostile_entries(codex_folder, "rollout-")
    caplog.set_level(logging.WARNING)
    for _ in range(3):
        tasks = within(HANG, lambda: executor.handle("runtime.tasks.list", {})["tasks"])
        assert sorted(t["runtime"] for t in tasks) == ["claude", "codex"]
    for path in hostile:
        mentions = [r for r in caplog.records if str(path) in r.getMessage()]
        assert len(mentions) == 1, (path, [r.getMessage() for r in caplog.records])
    first = {"localTaskId": tasks[0]["localTaskId"]}
    page = within(HANG, lambda: executor.handle("runtime.tasks.transcript", first))
    assert page["messages"]


def test_item_2_a_session_file_swapped_for_a_fifo_is_a_clear_error(
    isolated_home: Path, executor: Executor
) -> None:
    """Item 2: opening a task whose file became a FIFO answers at once with an error naming
    the file (it used to block the request, then every route)."""
    path = write_claude(isolated_home)
    task = executor.handle("runtime.tasks.list", {})["tasks"][0]
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(HangarError) as error:
        payload = {"localTaskId": task["localTaskId"], "refresh": True}
        within(HANG, lambda: executor.handle("runtime.tasks.transcript", payload))
    assert error.value.code == "corrupt_file" and str(path) in str(error.value)


def test_item_2_open_regular_refuses_without_blocking(tmp_path: Path) -> None:
    """Item 2: the one open used for agent files refuses a FIFO without waiting."""
    fifo = tmp_path / "x.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile) as error:
        within(HANG, lambda: open_regular(fifo))
    assert error.value.kind == "a FIFO"
    link = tmp_path / "link.jsonl"
    link.symlink_to(fifo)
    with pytest.raises(NotARegularFile):
        within(HANG, lambda: open_regular(link))


class BlockingStore(ClaudeStore):
    """A real Claude store whose describe waits until the test lets it go: a stand-in for a
    file that is slow to read (a hung network mount)."""

    release = threading.Event()
    entered = threading.Event()

    def describe(self, path: Path) -> SessionSource | None:
        self.entered.set()
        self.release.wait(60)
        return super().describe(path)


def test_item_2_a_slow_file_never_holds_other_callers(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 2: while one list is stuck reading a file, another caller answers from the index
    as it is within the gate's bounded wait (no lock is held during file I/O; the old code
    held the refresh lock through discovery, so every route queued behind it)."""
    from hangar.executor import rescan

    monkeypatch.setattr(rescan, "WAIT_SECONDS", 0.5)
    write_claude(isolated_home)
    home = AgentHome("claude", isolated_home / ".claude", None)
    BlockingStore.release.clear()
    BlockingStore.entered.clear()
    executor = Executor.open(stores={"claude": BlockingStore(home)})
    stuck = threading.Thread(target=executor.list_tasks, daemon=True)
    try:
        stuck.start()
        assert BlockingStore.entered.wait(HANG)
        assert within(HANG / 2, executor.list_tasks) == []  # answered, not queued
        assert stuck.is_alive()
    finally:
        BlockingStore.release.set()
        stuck.join(HANG)
        executor.close()
    assert not stuck.is_alive()


_WATCH_SCRIPT = r"""
import json, logging, os, sys, threading, time
from pathlib import Path
from hangar.agents.homes import AgentHome
from hangar.executor.watcher import SessionWatcher
from hangar.executor.task_index import TaskIndex
root = Path(sys.argv[1])
logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
events = []
got = threading.Event()
def publish(name, data):
    events.append(data)
    if any(p.endswith("new.jsonl") for p in data.get("paths", [])):
        got.set()
home = AgentHome("claude", root / ".claude", None)
watcher = SessionWatcher("dev", [home], root / "hangar-home", publish)
watcher.start()
time.sleep(1.5)
(root / ".claude" / "projects" / "-srv-ok" / "new.jsonl").write_text("{}\n")
ok = got.wait(20)
watcher.stop()
watcher.join(10)
shallow = [str(p) for p in watcher.plan.shallow]
print(json.dumps({"seen": ok, "restarts": watcher.restarts, "shallow": shallow}))
"""


def run_unprivileged(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` as a user without the power to read any folder (root reads everything):
    directly when not root, else as uid 1000 in a user namespace."""
    if os.geteuid() != 0:
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if shutil.which("unshare") is None:
        pytest.skip("root, and no unshare to drop the power to read every folder")
    probe = subprocess.run(["unshare", "--user", "--map-user=1000", "--map-group=1000", "true"],
                           capture_output=True, check=False)  # fmt: skip
    if probe.returncode != 0:
        pytest.skip("user namespaces are not available here")
    return subprocess.run(
        ["unshare", "--user", "--map-user=1000", "--map-group=1000", *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_item_3_an_unreadable_folder_does_not_stop_the_watcher(tmp_path: Path) -> None:
    """Item 3: with one unreadable folder in the agent home, a new session elsewhere in it is
    still seen live, the watcher does not restart in a loop, and warns once."""
    projects = tmp_path / ".claude" / "projects"
    (projects / "-srv-ok").mkdir(parents=True)
    locked = projects / "-srv-locked"
    locked.mkdir()
    (locked / "old.jsonl").write_text("{}\n")
    locked.chmod(0)
    script = tmp_path / "watch.py"
    script.write_text(_WATCH_SCRIPT)
    try:
        done = run_unprivileged([sys.executable, str(script), str(tmp_path)])
    finally:
        locked.chmod(0o755)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["seen"], done.stderr[-2000:]
    assert result["restarts"] <= 1
    assert str(projects) in result["shallow"]
    assert done.stderr.count(str(locked)) == 1, done.stderr


_LIST_SCRIPT = r"""
import json, logging, sys
from hangar.executor.service import Executor
logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
executor = Executor.open()
counts = [len(executor.handle("runtime.tasks.list", {})["tasks"]) for _ in range(3)]
executor.close()
print(json.dumps(counts))
"""


def test_item_3_an_unreadable_session_file_is_warned_about_once(tmp_path: Path) -> None:
    """Item 3: every list skips an unreadable session file, warning about it once (each list
    used to log a line per unreadable entry)."""
    home = tmp_path / "home"
    write_claude(home)
    secret = write_claude(home, "5c0375b4-57a5-4f26-b12d-d022ee4e51b8")
    secret.chmod(0)
    script = tmp_path / "list.py"
    script.write_text(_LIST_SCRIPT)
    env = {"HOME": str(home), "HANGAR_HOME": str(tmp_path / "hangar-home"),
           "PATH": os.environ["PATH"]}  # fmt: skip
    done = run_unprivileged(["env", *(f"{k}={v}" for k, v in env.items()),
                             sys.executable, str(script)])  # fmt: skip
    secret.chmod(0o644)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [1, 1, 1]
    assert done.stderr.count(str(secret)) == 1, done.stderr
