"""The reporter: the only writer of run messages (LR-127), and the usage reporter.

:class:`RunReporter` contract:

- :meth:`RunReporter.report` never raises for hub trouble. It drops empty messages and queues
  the rest (128 slots). When the queue is full the message goes straight to the spool, so a
  provider that must never wait (a TUI's proxy) is never held up; with ``wait_when_full=True``
  (a provider whose source can wait, such as a plugin's pipe) ``report`` waits for room
  instead, which keeps the order of a flood. Every message is
  :meth:`~hangar.model.run_messages.RunMessage.prepared` before it is posted or spooled —
  secrets redacted (they never leave the machine), fields bounded to what the hub keeps — on
  the poster thread, not the provider's.
- One poster thread sends in order: what is queued goes out together (up to ``batch_size``
  messages and about ``batch_bytes`` of text) through ``post_messages``, a message alone
  through ``post_message``; a batch the hub refuses is re-sent one by one, so only a bad
  message is lost. A transient failure is retried after 0.5, 1.5 and 3 s; then the messages
  are spooled and the reporter is *degraded*: later messages are spooled too (keeping their
  order) and the spool is re-sent every ``resync_interval`` seconds until it is empty, after
  which direct posting resumes.
- :meth:`RunReporter.close` drains the queue and the spool within ``timeout`` seconds and
  returns how many items are still spooled (for ``hangar local-run sync-pending``).

:class:`UsageReporter` merges usage per provider+model, sends the cumulative list with ``PUT``
at most once per ``debounce`` seconds, and spools the latest list when the hub is away.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hangar.localrun.hub_api import HubRejected, HubUnavailable, RunApi
from hangar.localrun.spool import Spool
from hangar.model.run_messages import RunMessage, UsageEntry

RETRY_DELAYS = (0.5, 1.5, 3.0)


@dataclass
class ReporterStats:
    posted: int = 0
    deduplicated: int = 0
    spooled: int = 0
    rejected: int = 0
    dropped_empty: int = 0
    unspoolable: int = 0


def payload_of(message: RunMessage) -> dict[str, Any]:
    """What is posted (and spooled) for ``message``: redacted and bounded."""
    return message.prepared().to_json()


class RunReporter:
    """Queue + poster + spool for one run's messages (see the module docstring)."""

    def __init__(
        self,
        api: RunApi,
        run_id: str,
        spool: Spool,
        *,
        retry_delays: Sequence[float] = RETRY_DELAYS,
        queue_size: int = 128,
        resync_interval: float = 5.0,
        wait_when_full: bool = False,
        batch_size: int = 200,
        batch_bytes: int = 1 << 20,
    ) -> None:
        self.api = api
        self.run_id = run_id
        self.spool = spool
        self.stats = ReporterStats()
        self._retry_delays = tuple(retry_delays)
        self._resync_interval = resync_interval
        self._wait_when_full = wait_when_full
        self._batch_size = batch_size
        self._batch_bytes = batch_bytes
        self._queue: queue.Queue[RunMessage | None] = queue.Queue(maxsize=queue_size)
        self._closing = threading.Event()
        self._degraded = False
        self._last_resync = 0.0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="hangar-reporter", daemon=True)
        self._thread.start()

    @property
    def degraded(self) -> bool:
        return self._degraded

    def report(self, message: RunMessage) -> None:
        """Queue one message for the hub (empty non-tool messages are dropped)."""
        if message.is_empty():
            self.stats.dropped_empty += 1
            return
        if self._wait_when_full and not self._closing.is_set():
            self._queue.put(message)
            return
        try:
            self._queue.put_nowait(message)
        except queue.Full:
            self._spool(payload_of(message))

    def _spool(self, payload: dict[str, Any]) -> None:
        with self._lock:
            try:
                self.spool.put_message(self.run_id, payload)
            except OSError as exc:  # e.g. a full disk: say so, keep the session running
                self.stats.unspoolable += 1
                print(f"hangar: cannot spool a run message: {exc}", file=sys.stderr)
                return
            self.stats.spooled += 1

    def _post_with_retries(self, payload: dict[str, Any]) -> bool:
        """True when the hub took the message (new or duplicate) or refused it for good."""
        for attempt, delay in enumerate((0.0, *self._retry_delays)):
            if attempt and self._closing.wait(delay):
                break  # closing: no more waiting, the spool keeps it
            try:
                created = self.api.post_message(self.run_id, payload)
            except HubUnavailable:
                continue
            except HubRejected as exc:
                self.stats.rejected += 1
                print(f"hangar: run message refused by the hub: {exc}", file=sys.stderr)
                return True
            if created:
                self.stats.posted += 1
            else:
                self.stats.deduplicated += 1
            return True
        return False

    def _post_batch_with_retries(self, batch: list[dict[str, Any]]) -> bool:
        """Like :meth:`_post_with_retries` for several messages, in order."""
        if len(batch) == 1:
            return self._post_with_retries(batch[0])
        for attempt, delay in enumerate((0.0, *self._retry_delays)):
            if attempt and self._closing.wait(delay):
                break
            try:
                created = self.api.post_messages(self.run_id, batch)
            except HubUnavailable:
                continue
            except HubRejected:
                # one bad message must not cost the others: send each (every one, even after
                # one that could not be sent: the spool re-sends the whole batch idempotently)
                sent = [self._post_with_retries(payload) for payload in batch]
                return all(sent)
            self.stats.posted += sum(created)
            self.stats.deduplicated += len(created) - sum(created)
            return True
        return False

    def _take_batch(self, first: RunMessage) -> tuple[list[RunMessage], bool]:
        """``first`` plus what is queued behind it (bounded); ``True`` when the close marker
        was among them."""
        batch = [first]
        size = _weight(first)
        while len(batch) < self._batch_size and size < self._batch_bytes:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                return batch, True
            batch.append(item)
            size += _weight(item)
        return batch, False

    def _resync(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_resync < self._resync_interval:
            return
        self._last_resync = now
        result = self.spool.sync(self.api, self.run_id)
        if result.remaining == 0:
            self._degraded = False

    def _run(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=0.25)
            except queue.Empty:
                if self._degraded:
                    self._resync()
                continue
            if item is None:
                return
            items, closing = self._take_batch(item)
            payloads = [payload_of(message) for message in items]
            if self._degraded:
                self._resync()
            if self._degraded:
                for payload in payloads:
                    self._spool(payload)
            elif not self._post_batch_with_retries(payloads):
                # degraded before the first file appears: whoever sees the spool sees the state
                self._degraded = True
                self._last_resync = time.monotonic()
                for payload in payloads:
                    self._spool(payload)
            if closing:
                return

    def close(self, timeout: float = 30.0) -> int:
        """Drain the queue, re-send the spool; return the number of items left spooled."""
        deadline = time.monotonic() + timeout
        self._closing.set()
        self._queue.put(None)
        self._thread.join(max(0.0, deadline - time.monotonic()))
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self._spool(payload_of(item))  # the poster did not get to it in time
        while time.monotonic() < deadline:
            result = self.spool.sync(self.api, self.run_id)
            if result.remaining == 0 or result.synced == 0:
                return result.remaining
        return self.spool.count(self.run_id)


def _weight(message: RunMessage) -> int:
    """Rough size of a message on the wire (its text fields dominate)."""
    return 200 + len(message.content) + len(message.output or "")


class UsageReporter:
    """Cumulative token usage per provider+model, debounced ``PUT`` (see module docstring)."""

    def __init__(self, api: RunApi, run_id: str, spool: Spool, *, debounce: float = 2.0) -> None:
        self.api = api
        self.run_id = run_id
        self.spool = spool
        self._debounce = debounce
        self._totals: dict[tuple[str, str], UsageEntry] = {}
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._closed = False

    def add(self, delta: UsageEntry) -> None:
        """Add one increment of usage (e.g. one model response)."""
        key = (delta.provider, delta.model)
        with self._lock:
            previous = self._totals.get(key)
            self._totals[key] = previous.plus(delta) if previous else delta
            if self._timer is None and not self._closed:
                self._timer = threading.Timer(self._debounce, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def totals(self) -> list[UsageEntry]:
        with self._lock:
            return list(self._totals.values())

    def flush(self) -> bool:
        """Send the cumulative usage now; spool it if the hub is away. True when sent."""
        with self._lock:
            self._timer = None
            body = [entry.to_json() for entry in self._totals.values()]
        if not body:
            return True
        try:
            self.api.put_usage(self.run_id, body)
        except (HubUnavailable, HubRejected):
            self.spool.put_usage(self.run_id, body)
            return False
        self.spool.discard_usage(self.run_id)  # an older spooled total must not win later
        return True

    def close(self) -> bool:
        with self._lock:
            self._closed = True
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        return self.flush()
