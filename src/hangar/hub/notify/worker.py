"""The delivery worker: sends queued notifications, retrying failures with backoff.

Each round claims due deliveries (a lease per row, so two replicas never send the same one),
sends each through Apprise outside any transaction, and records the outcome: sent; retried
after 2, 4, 8, … seconds (at most :data:`MAX_DELAY`); failed for good after
:data:`MAX_ATTEMPTS`. Failures stay visible (``GET /api/notifications``, the Notifications
page) with their last error. A down target costs its own retries, never a reply.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from hangar.hub.devices.registry import now
from hangar.hub.notify import sender, store
from hangar.hub.notify.service import Notifications

log = logging.getLogger("hangar.hub.notify")

MAX_ATTEMPTS = 6
BASE_DELAY = 2.0
MAX_DELAY = 300.0
IDLE = 2.0

Send = Callable[[str, str, str], str | None]
Publish = Callable[[str, dict[str, Any]], None]


def backoff(attempts: int) -> float:
    """Seconds before the next try after ``attempts`` failed ones."""
    return float(min(MAX_DELAY, BASE_DELAY * 2 ** max(attempts - 1, 0)))


def deliver_due(notifications: Notifications, send: Send = sender.send) -> int:
    """One round: send what is due; returns how many attempts were made."""
    engine = notifications.engine
    attempts = 0
    for due in store.claim_due(engine):
        attempts += 1
        try:
            error = send(store.target_url(engine, due.target_id), due.title, due.body)
        except Exception as exc:  # a plugin's own failure is a failed attempt
            error = f"{type(exc).__name__}: {exc}"[:500]
        tries = due.attempts + 1
        retry_at = None
        if error is not None and tries < MAX_ATTEMPTS:
            retry_at = now() + timedelta(seconds=backoff(tries))
        if error is not None:
            log.warning("notification %s failed (try %d): %s", due.id, tries, error)
        store.settle(engine, due, error, retry_at)
    return attempts


class DeliveryWorker(threading.Thread):
    def __init__(self, notifications: Notifications, publish: Publish | None = None) -> None:
        super().__init__(name="hangar-notify", daemon=True)
        self.notifications = notifications
        self.publish = publish
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()
        self.notifications.wake.set()
        self.join(timeout=10)

    def run(self) -> None:
        while not self._stopping.is_set():
            self.notifications.wake.wait(IDLE)
            self.notifications.wake.clear()
            if self._stopping.is_set():
                return
            try:
                if deliver_due(self.notifications) and self.publish is not None:
                    self.publish("notifications.changed", {})
            except Exception as exc:  # the database restarting: try again next round
                log.warning("notification round failed: %s", exc)
