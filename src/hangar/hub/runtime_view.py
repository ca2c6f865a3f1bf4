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
from hangar.hub.fanout import Pending, fan_out
from hangar.hub.fresh_shared import FreshShared
from hangar.hub.runtime_work import Bound, DeviceInfo, group_tasks
from hangar.protocol.codec import to_json

Fetch = Callable[[str, int | None], Pending]
"""``fetch(device_id, if_revision)``: one ``runtime.tasks.list`` call to that device, started
(:func:`hangar.hub.fanout.begin`); it answers a :class:`TaskList`."""
Marks = Callable[[str], Pending]
"""``marks(device_id)``: a started call answering the extra fields per ``localTaskId`` (what
runs, what waits); asked in parallel with the lists, under the same timeout."""


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
    _fresh: FreshShared[tuple[dict[str, Any], bytes]] | None = None

    def fresh(
        self, compute: Callable[[], tuple[dict[str, Any], bytes]]
    ) -> FreshShared[tuple[dict[str, Any], bytes]]:
        """The whole read (``compute``: devices, bindings, then :meth:`body`), shared by
        concurrent callers through :class:`FreshShared`: each gets a read that began after
        it asked. The first ``compute`` given is the one kept: one view serves one hub."""
        with self._lock:
            if self._fresh is None:
                self._fresh = FreshShared(compute)
            return self._fresh

    def body(
        self,
        infos: list[DeviceInfo],
        fetch: Fetch,
        timeout: float = 10.0,
        offline: list[DeviceInfo] | None = None,
        marks: Marks | None = None,
        bound: tuple[Bound, ...] = (),
    ) -> tuple[dict[str, Any], bytes]:
        """The current body and its JSON encoding. Devices are asked in parallel, each for
        at most ``timeout`` seconds; ``offline`` devices are listed without tasks. A device
        whose marks fail or come late still lists its tasks, unmarked. ``bound``: the
        device directories bound to Projects (their labels, RW-304)."""
        tasks: dict[str, list[dict[str, Any]]] = {}
        registered: dict[str, list[str]] = {}
        errors: list[dict[str, str]] = []
        key: list[object] = [tuple(infos), tuple(offline or ()), bound]
        cacheable = True
        held_of = {i.device_id: self.lists.get(i.device_id) for i in infos}

        jobs: list[tuple[DeviceInfo, bool]] = [(i, False) for i in infos]
        if marks is not None:
            jobs += [(i, True) for i in infos]

        def ask(job: tuple[DeviceInfo, bool]) -> Pending:
            info, is_marks = job
            if is_marks and marks is not None:
                return marks(info.device_id)
            held = held_of[info.device_id]
            return fetch(info.device_id, None if held is None else held[0])

        answers = fan_out(jobs, ask, timeout, lambda j: j[0].device_id, method="runtime.tasks.list")
        marks_of = {
            job[0].device_id: answer
            for job, answer in zip(jobs[len(infos) :], answers[len(infos) :], strict=True)
            if isinstance(answer, dict)  # failed or late marks: the tasks go unmarked
        }
        failed: set[str] = set()
        for info, result in zip(infos, answers[: len(infos)], strict=True):
            device_id = info.device_id
            held = held_of[device_id]
            if isinstance(result, HangarError):  # one failing device must not hide the others
                exc = result
                errors.append({"deviceId": device_id, "code": exc.code, "message": str(exc)})
                key.append((device_id, "error", exc.code, str(exc)))
                failed.add(device_id)
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
            found: dict[str, dict[str, Any]] = marks_of.get(device_id, {})
            if found:
                key.append((device_id, "marks", repr(sorted(found.items()))))
                tasks[device_id] = [
                    {**t, **found[t["localTaskId"]]} if t.get("localTaskId") in found else t
                    for t in tasks[device_id]
                ]
        snapshot = self._snapshot
        if cacheable and snapshot is not None and snapshot.key == tuple(key):
            return snapshot.body, snapshot.encoded
        body = group_tasks(infos, tasks, registered, bound)
        for device in body["devices"]:
            if device["deviceId"] in failed:
                device["state"], device["online"] = "unreachable", False
        body["devices"] += [
            {
                "deviceId": d.device_id,
                "name": d.name,
                "local": d.local,
                "online": False,
                "state": "offline",
                "address": None,
                "label": None,
                "display": d.name or d.device_id,
            }
            for d in offline or ()
        ]
        body["errors"] = errors
        encoded = msgspec.json.encode(body)
        with self._lock:
            self.builds += 1
            if cacheable:
                self._snapshot = _Snapshot(tuple(key), body, encoded)
        return body, encoded
