"""A burst of concurrent requests reuses hub.db connections instead of reopening them.

Every ``GET /api/runtime-work`` reads the device states from hub.db. With SQLAlchemy's default
pool (5 kept, 10 more opened and closed per use) a burst of concurrent requests opened a new
SQLite connection, and ran its PRAGMAs, for most of them, on every burst.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import sqlalchemy as sa

from hangar.hub.store.database import open_hub_database

BURST = 15
"""Connections held at once (what SQLAlchemy's default pool allows without waiting)."""


def _burst(engine: sa.Engine) -> None:
    """``BURST`` connections held at once, each running a query, then all returned."""
    with ExitStack() as held:
        for _ in range(BURST):
            conn = held.enter_context(engine.connect())
            assert conn.execute(sa.text("SELECT count(*) FROM devices")).scalar_one() == 0


def test_a_second_burst_opens_no_connection(tmp_path: Path) -> None:
    engine = open_hub_database(tmp_path / "hub.db")
    opened: list[object] = []
    sa.event.listen(engine, "connect", lambda conn, record: opened.append(conn))
    try:
        _burst(engine)
        first = len(opened)
        _burst(engine)
        assert first <= BURST
        assert len(opened) == first, "the second burst reopened connections"
    finally:
        engine.dispose()
