"""The ``GET /api/runtime-work`` body, built once per change of any device's task list.

The sidebar and every open page ask for the list often, many at once; the answer changes only
when a device's list does. Each executor returns a ``revision`` with its list and, asked with
``ifRevision`` equal to the current one, answers ``unchanged`` without the tasks.
:class:`RuntimeView` keeps the tasks each device last sent, the grouped body and its encoded
JSON, and rebuilds them only when a revision, the set of devices or a device's error changed.
A device that sends no revision (an executor that predates it) is asked in full every time and
the body is rebuilt for every request, as before.

Each task may carry live marks (``replying``, ``pendingApprovals``) from a second callback;
they are part of what decides a rebuild, and added to copies of the tasks (never to the lists
held per device).

The cached body is shared between requests: callers must not mutate it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from hangar.errors import HangarError
from hangar.hub.runtime_work import DeviceInfo, group_tasks
from hangar.protocol.codec import to_json
from hangar.protocol.tasks import TaskList

Fetch = Callable[[str, int | None], TaskList]
"""``fetch(device_id, if_revision)``: one ``runtime.tasks.list`` call to that device."""
Marks = Callable[[str], dict[str, dict[str, Any]]]
"""``marks(device_id)``: extra fields per ``localTaskId`` (what runs, what waits)."""


@dataclass(frozen=True)
class _Snapshot:
    key: tuple[object, ...]
    body: dict[str, Any]
    encoded: bytes


@dataclass
class RuntimeView:
    lists: dict[str, tuple[int, list[dict[str, Any]]]] = field(default_factory=dict)
    """Per device: the revision and tasks (with ``deviceId``) it last sent in full."""
    builds: int = 0
    """Bodies built so far (for tests and the benchmark)."""
    _snapshot: _Snapshot | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def body(
        self, infos: list[DeviceInfo], fetch: Fetch, marks: Marks | None = None
    ) -> tuple[dict[str, Any], bytes]:
        """The current body and its JSON encoding."""
        tasks: dict[str, list[dict[str, Any]]] = {}
        registered: dict[str, list[str]] = {}
        errors: list[dict[str, str]] = []
        key: list[object] = [tuple(infos)]
        cacheable = True
        for info in infos:
            device_id = info.device_id
            held = self.lists.get(device_id)
            try:
                result = fetch(device_id, None if held is None else held[0])
            except HangarError as exc:  # one failing device must not hide the others
                errors.append({"deviceId": device_id, "code": exc.code, "message": str(exc)})
                key.append((device_id, "error", exc.code, str(exc)))
                continue
            revision = result.revision
            if result.projects:
                registered[device_id] = list(result.projects)
                key.append((device_id, "projects", tuple(result.projects)))
            if result.unchanged and held is not None and held[0] == revision:
                tasks[device_id] = held[1]
            else:
                sent: list[dict[str, Any]] = to_json(result.tasks)
                listed = [{**t, "deviceId": t.get("deviceId") or device_id} for t in sent]
                tasks[device_id] = listed
                if isinstance(revision, int):
                    with self._lock:
                        self.lists[device_id] = (revision, listed)
                else:
                    cacheable = False
            key.append((device_id, revision))
            found = _marks(marks, device_id)
            if found:
                key.append((device_id, "marks", repr(sorted(found.items()))))
                tasks[device_id] = [
                    {**t, **found[t["localTaskId"]]} if t.get("localTaskId") in found else t
                    for t in tasks[device_id]
                ]
        snapshot = self._snapshot
        if cacheable and snapshot is not None and snapshot.key == tuple(key):
            return snapshot.body, snapshot.encoded
        body = group_tasks(infos, tasks, registered)
        body["errors"] = errors
        encoded = msgspec.json.encode(body)
        with self._lock:
            self.builds += 1
            if cacheable:
                self._snapshot = _Snapshot(tuple(key), body, encoded)
        return body, encoded


def _marks(marks: Marks | None, device_id: str) -> dict[str, dict[str, Any]]:
    if marks is None:
        return {}
    try:
        return marks(device_id)
    except HangarError:  # a device without live marks still lists its tasks
        return {}
