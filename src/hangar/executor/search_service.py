"""The search index of one executor: when to index, in the foreground or in the background.

:class:`SearchService` owns the :class:`~hangar.executor.search_index.SearchIndexer` and its
one background build. A search waits for indexing when little is pending; a large first build
runs on a thread and the search answers from what is already indexed, with the progress.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping

from hangar.agents.base import AgentStore
from hangar.executor.database import ExecutorDatabase
from hangar.executor.search_index import IndexProgress, SearchIndexer, source_size

INDEX_WORKERS = min(4, os.cpu_count() or 1)
"""Processes that parse sessions during a large first build (see ``SearchIndexer.sync``)."""
FOREGROUND_INDEX_BYTES = 16 * 1024 * 1024
"""A search waits for indexing when less than this is pending; more runs in the background."""

Report = Callable[[IndexProgress], None]


class SearchService:
    def __init__(
        self,
        db: ExecutorDatabase,
        stores: Mapping[str, AgentStore],
        refresh_tasks: Callable[[], None],
    ) -> None:
        self.indexer = SearchIndexer(db, stores)
        self.progress = IndexProgress()
        self.indexing = False
        self._refresh_tasks = refresh_tasks
        self._lock = threading.Lock()
        self._background: threading.Thread | None = None

    def sync(self, report: Report | None = None) -> IndexProgress:
        """Refresh the task index, then index what changed (one sync at a time)."""
        self._refresh_tasks()
        with self._lock:
            self.indexing = True
            try:

                def track(state: IndexProgress) -> None:
                    self.progress = state
                    if report is not None:
                        report(state)

                return self.indexer.sync(track, workers=INDEX_WORKERS)
            finally:
                self.indexing = False

    def ensure(self) -> IndexProgress | None:
        """Index now when little is pending; otherwise index in the background and return
        the progress so far (the search then answers from what is already indexed)."""
        self._refresh_tasks()
        if self.indexing:
            return self.progress
        pending = self.indexer.pending()
        if not pending:
            return None
        size = sum(source_size(row["source_path"]) for row in pending)
        if size <= FOREGROUND_INDEX_BYTES:
            self.sync()
            return None
        if self._background is None or not self._background.is_alive():
            self._background = threading.Thread(
                target=self.sync, name="hangar-search-index", daemon=True
            )
            self._background.start()
        return self.progress

    def wait_background(self, timeout: float) -> bool:
        """Wait for a background build to end; ``True`` when none is running."""
        if self._background is not None:
            self._background.join(timeout)
            return not self._background.is_alive()
        return True
