"""The sweeper: a ``running`` local run silent for ``SILENCE`` seconds is failed.

``hangar run`` heartbeats every 30 s; a run whose CLI process vanished (machine slept, kill -9)
would otherwise stay "running" forever. The error says why, so the user is not left guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.hub.store import schema
from hangar.hub.store.local_runs import now
from hangar.hub.store.writes import transaction
from hangar.hub.workers.periodic import PeriodicWorker

SILENCE = 150.0
INTERVAL = 30.0
TIMEOUT_ERROR = "local CLI heartbeat timed out"

runs_t = schema.local_runs


def sweep(engine: Engine, at: datetime | None = None, silence: float = SILENCE) -> list[str]:
    """Fail every running run whose last heartbeat is older than ``silence``; return their ids."""
    stamp = at or now()
    cutoff = stamp - timedelta(seconds=silence)
    with transaction(engine) as conn:
        stale = list(
            conn.execute(
                sa.select(runs_t.c.id).where(
                    runs_t.c.status == "running", runs_t.c.heartbeat_at < cutoff
                )
            ).scalars()
        )
        if stale:
            conn.execute(
                sa.update(runs_t)
                .where(runs_t.c.id.in_(stale), runs_t.c.status == "running")
                .values(status="failed", error=TIMEOUT_ERROR, completed_at=stamp)
            )
    return stale


class SweeperWorker(PeriodicWorker):
    """Calls :func:`sweep` every ``interval`` seconds on a daemon thread."""

    def __init__(
        self,
        engine: Engine,
        publish: Callable[[str, dict[str, Any]], None],
        interval: float = INTERVAL,
        silence: float = SILENCE,
    ) -> None:
        super().__init__("hangar-sweeper", interval)
        self._engine, self._publish = engine, publish
        self._silence = silence

    def step(self) -> None:
        for run_id in sweep(self._engine, silence=self._silence):
            self._publish("local_run.changed", {"runId": run_id, "status": "failed"})
