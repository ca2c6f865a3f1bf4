"""Issue 12, item 5: a delete queued by a process that was killed before phase two is
finished by the next ``hangar serve``, without another delete to wake the worker."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from .server_process import running_hub
from .sessions import ClaudeSession

PHASE_ONE_THEN_KILLED = """
import os, signal
from hangar.executor.delete_worker import request_delete
from hangar.executor.service import Executor
executor = Executor.open()
task = executor.list_tasks()[0]
request_delete(executor.db, [task.local_task_id])
print(task.local_task_id, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_item_5_a_queued_delete_resumes_when_hangar_serve_starts(
    isolated_home: Path, hangar_home: Path
) -> None:
    """Item 5: phase one done, the process killed with SIGKILL, then ``hangar serve``: the
    session's files move to the trash on start (they used to wait for another delete)."""
    session = ClaudeSession(isolated_home, "77777777-aaaa-4aaa-8aaa-000000000007", "/srv/old")
    session.user("Delete me").assistant("Sure.")
    killed = subprocess.run(
        [sys.executable, "-c", PHASE_ONE_THEN_KILLED],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    task_id = killed.stdout.strip()
    assert session.path.exists()  # phase one never touches the files
    with running_hub():
        manifest = hangar_home / "trash" / task_id / "manifest.json"
        deadline = time.monotonic() + 60
        while session.path.exists() or not manifest.exists():
            assert time.monotonic() < deadline, "the queued delete did not resume"
            time.sleep(0.1)
    assert json.loads(manifest.read_text())["state"] == "complete"
