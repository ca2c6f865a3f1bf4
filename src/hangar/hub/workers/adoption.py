"""The adoption follower: adopted sessions keep syncing while they grow.

The executor's session watcher drives it: every ``runtime.changed`` event of a device
(:meth:`AdoptionWorker.notify`, wired by the composition root; a remote device's events
arrive the same way over its link) wakes the worker, which asks that device for what each
followed task gained (:func:`hangar.hub.adoption.sync`). Without events (no watcher, or a
device whose events were lost) it still looks every ``interval`` seconds; a task whose file
did not change costs its device one ``stat``. A device that is away or a task that is gone
is recorded on the adoption (``lastError``) and tried again later; the run stays.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Self

from hangar.errors import HangarError
from hangar.hub import adoption
from hangar.hub.context import HubContext
from hangar.hub.store import adoptions

log = logging.getLogger("hangar.hub.adoption")
INTERVAL = 15.0
_ALL = ""


class AdoptionWorker:
    """One daemon thread; :meth:`notify` may be called from any thread and never blocks."""

    def __init__(self, ctx: HubContext, interval: float = INTERVAL) -> None:
        self.ctx = ctx
        self.interval = interval
        self.synced = 0
        """How many new messages the worker stored (for tests and logs)."""
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hangar-adoption", daemon=True)

    def notify(self, event: str, data: dict[str, Any]) -> None:
        """An executor event: a ``runtime.changed`` of a device wakes the worker for it."""
        if event != "runtime.changed":
            return
        with self._lock:
            self._dirty.add(str(data.get("deviceId") or _ALL))
        self._wake.set()

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(10)

    def _run(self) -> None:
        while not self._stop.is_set():
            woken = self._wake.wait(self.interval)
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._lock:
                dirty, self._dirty = self._dirty, set()
            devices = None if not woken or _ALL in dirty else dirty
            self.step(devices)

    def step(self, devices: set[str] | None = None) -> int:
        """Sync every followed adoption on ``devices`` (all when ``None``); returns how many
        new messages were stored."""
        stored = 0
        for followed in adoptions.following(self.ctx.engine, self.ctx.workspace, devices):
            try:
                stored += adoption.sync(self.ctx, followed)
            except HangarError as exc:
                log.info("adopted session %s not synced: %s", followed.local_task_id, exc)
                adoptions.record_error(self.ctx.engine, followed.run_id, str(exc))
            except Exception as exc:  # a worker must never take the hub down
                log.warning("adoption sync failed: %s", exc)
        self.synced += stored
        return stored
