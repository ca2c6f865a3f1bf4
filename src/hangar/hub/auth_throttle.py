"""Slowing down token guessing: a failure budget per client address.

Contract of :class:`FailureThrottle`:

- Each client address has a budget of ``burst`` failed attempts that refills at
  ``per_second``. A failed bearer token (one the hub does not know at all) or a failed login
  spends one; once the budget is spent, that address's attempts with credentials are answered
  ``429 too_many_failures`` with ``Retry-After`` *before* their credentials are looked at, so
  guessing goes no faster than the refill and a lucky guess cannot be told from a wrong one.
- Nothing waits: a refused attempt is answered at once, no thread or connection is held, and
  other addresses are never affected. (Behind a proxy every client has the proxy's address.)
- Memory is bounded: at most ``max_clients`` addresses are remembered; a refilled budget is
  forgotten, and when the table is full the least recently failing address goes first.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

BURST = 10
PER_SECOND = 1.0
MAX_CLIENTS = 10_000


class FailureThrottle:
    """Failure budgets per client address (see the module docstring)."""

    def __init__(
        self,
        burst: int = BURST,
        per_second: float = PER_SECOND,
        max_clients: int = MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = float(burst)
        self.per_second = per_second
        self.max_clients = max_clients
        self.clock = clock
        self._budgets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """address → (budget left, clock time it was computed)."""
        self._lock = threading.Lock()

    def _budget(self, client: str, now: float) -> float:
        entry = self._budgets.get(client)
        if entry is None:
            return self.burst
        left, since = entry
        budget = min(self.burst, left + (now - since) * self.per_second)
        if budget >= self.burst:
            del self._budgets[client]
        return budget

    def retry_after(self, client: str) -> int:
        """Whole seconds ``client`` must wait before its next attempt; 0 when it may try now."""
        with self._lock:
            budget = self._budget(client, self.clock())
        if budget >= 1:
            return 0
        return max(1, math.ceil((1 - budget) / self.per_second))

    def failed(self, client: str) -> None:
        """Spend one attempt of ``client``'s budget."""
        with self._lock:
            now = self.clock()
            budget = self._budget(client, now) - 1
            self._budgets[client] = (max(budget, 0.0), now)
            self._budgets.move_to_end(client)
            while len(self._budgets) > self.max_clients:
                self._budgets.popitem(last=False)

    def __len__(self) -> int:
        return len(self._budgets)
