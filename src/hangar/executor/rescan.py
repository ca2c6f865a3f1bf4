"""When the LocalTask index rescans the agent homes: once per change, not once per request.

A rescan stats every session file, so doing one per ``runtime.tasks.list`` makes twenty
concurrent list calls twenty rescans in a row. :class:`RescanGate` runs ``scan`` for a caller
only when needed:

* **Watched** (a session watcher is attached and armed, see :meth:`RescanGate.watching`): a
  scan runs only after the watcher reported a change (:meth:`RescanGate.changed`), or the
  watcher's own probe says its view is stale (an agent home appeared or vanished). A request
  after nothing changed costs one flag check and the probe, run without holding the lock.
* **Unwatched** (the CLI, tests, a watcher that is starting or restarting): every request is
  answered from a scan that *started after it arrived*, but concurrent requests share one: a
  caller that arrives while a scan runs waits for it to end and is then covered by the next
  scan, which serves every caller that was waiting. A burst of N calls costs at most two scans.

``force=True`` (a key that did not resolve: the session may be seconds old) ignores the
watcher but still shares scans. A change reported while a scan runs marks the gate dirty again,
so it is never lost; a scan that raises leaves it dirty.

No lock is held while ``scan`` runs (it reads files: one slow or hostile file must not hold
every caller): a waiter waits on a condition for at most :data:`WAIT_SECONDS`, then answers
from the index as it is (and says so once in the log) instead of hanging behind the scan.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from hangar.regular_files import warn_once

log = logging.getLogger(__name__)
WAIT_SECONDS = 10.0
"""The longest a caller waits for a scan another caller is running."""

Probe = Callable[[], bool]
"""Returns ``True`` when the watcher's view is stale (cheap: a few ``stat`` calls)."""


class RescanGate:
    def __init__(self) -> None:
        self._state = threading.Condition(threading.Lock())
        self._running = False
        self._asked = 0
        self._covered = 0
        self._watched = False
        self._dirty = True
        self._probe: Probe | None = None
        self.scans = 0
        """Scans run so far (for tests and the benchmark)."""

    def run(self, scan: Callable[[], object], *, force: bool = False) -> bool:
        """Run ``scan`` if this caller needs one (see the module docstring); ``True`` when
        this call ran it."""
        with self._state:
            clean = not force and self._watched and not self._dirty
            probe = self._probe
        # The probe stats a few paths: outside the lock, so concurrent callers of a watched,
        # clean gate never queue behind each other's system calls.
        if clean and (probe is None or not probe()):
            return False
        with self._state:
            if clean:
                self._dirty = True
            self._asked += 1
            ticket = self._asked
            deadline = time.monotonic() + WAIT_SECONDS
            while self._running and self._covered < ticket:
                left = deadline - time.monotonic()
                if left <= 0:
                    warn_once(
                        log,
                        "rescan-wait",
                        "a rescan of the agent homes takes over %.0f s; answering from the"
                        " index as it is",
                        WAIT_SECONDS,
                    )
                    return False
                self._state.wait(left)
            if self._covered >= ticket:
                return False  # a scan that started after this call arrived has ended
            self._running = True
            covers = self._asked
            self._dirty = False
        try:
            scan()
        except BaseException:
            with self._state:
                self._dirty = True
                self._running = False
                self._state.notify_all()
            raise
        with self._state:
            self._covered = covers
            self.scans += 1
            self._running = False
            self._state.notify_all()
        return True

    def changed(self) -> None:
        """Something under the agent homes changed: the next request rescans."""
        with self._state:
            self._dirty = True

    def watching(self, armed: bool, probe: Probe | None = None) -> None:
        """A watcher starts (``armed``) or stops covering the agent homes. Arming marks the
        gate dirty: changes made before the watch began are picked up by one more scan."""
        with self._state:
            self._watched = armed
            self._probe = probe if armed else None
            self._dirty = True

    @property
    def watched(self) -> bool:
        return self._watched

    @property
    def requests(self) -> int:
        """Callers that asked for a scan so far (those a watched, clean gate turned away do
        not count)."""
        return self._asked
