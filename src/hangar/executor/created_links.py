"""Created tasks whose session link was never written, linked again after a restart (RW-281).

A task hangar creates is registered under the client's ``localTaskId`` first; the agent's
session is linked to it when the agent names it (:mod:`hangar.executor.task_create`). An
executor stopped in between leaves the row without its session — and, once a scan finds the
session's file, that file would list as a second task. So before this process's first scan,
each such row of an earlier process asks its agent's control for the session it started
(:meth:`~hangar.agents.control.AgentControl.find_created`: Codex's ``thread/list``) —
started in the task's directory, at or after the task was registered, with the task's first
line as its first message — skipping sessions the index already gives to an earlier task,
and links the oldest one, with the file the agent names for it
(:meth:`~hangar.agents.control.AgentControl.session_file`: ``thread/read``), so its
transcript reads at once. A row whose agent has no such session is marked failed; a row
whose agent cannot tell now (not installed, not answering) is left for the next start.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hangar.executor.core import ExecutorCore

log = logging.getLogger("hangar.executor.created_links")


def _unix(stamp: str) -> float | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def restore_created_links(core: ExecutorCore, skip: set[str]) -> int:
    """Link what can be linked (see the module docstring); ``skip``: ids this process is
    creating now. Returns how many rows were linked."""
    linked = 0
    taken: set[str] = set()
    for row in core.index.unlinked_created():
        local_task_id = str(row["local_task_id"])
        since = _unix(str(row["created_at"]))
        if local_task_id in skip or since is None or not row["workspace_path"]:
            continue
        control = core.control(str(row["runtime"]))
        if control is None:
            continue
        try:
            found = control.find_created(Path(row["workspace_path"]), str(row["title"]), since)
            if found is None:
                continue  # this agent cannot tell (now)
            earlier = core.index.session_keys_before(str(row["runtime"]), str(row["created_at"]))
            handle = next(
                (h for h in found if _key(h) not in earlier and _key(h) not in taken), None
            )
            if handle is None:  # the agent never started it: the creation failed
                core.index.creation_failed(local_task_id)
                continue
            path = control.session_file(handle)
        except Exception as exc:  # the agent cannot tell now: try again at the next start
            log.warning("created task %s not linked yet: %s", local_task_id, exc)
            continue
        key = _key(handle)
        taken.add(key)
        core.index.link_session(local_task_id, key, handle, str(path) if path else None)
        log.info("created task %s linked again to %s", local_task_id, key)
        linked += 1
    return linked


def _key(handle: Mapping[str, str]) -> str:
    return handle.get("threadId") or handle.get("sessionId") or ""
