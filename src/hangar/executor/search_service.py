"""The search index of one executor: when to index, in the foreground or in the background.

:class:`SearchService` owns the :class:`~hangar.executor.search_index.SearchIndexer` and its
one background build. A search waits for indexing when little is pending; a large first build
runs on a thread and the search answers from what is already indexed, with the progress.

Finding what is pending stats every indexed session file, so a search does it only when the
task list moved (its :meth:`~hangar.executor.task_index.TaskIndex.revision`, which every
rescan that saw a changed file, every rename and every parse moves) since the last time
nothing was pending: a search after nothing changed goes straight to the index.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping

from hangar.agents.base import AgentStore
from hangar.executor.database import ExecutorDatabase
from hangar.executor.search_index import IndexProgress, OnParse, SearchIndexer, source_size
from hangar.transcripts.engine import TranscriptEngine

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
        *,
        engine: TranscriptEngine | None = None,
        on_parse: OnParse | None = None,
        revision: Callable[[], int] | None = None,
    ) -> None:
        self.indexer = SearchIndexer(db, stores, engine=engine, on_parse=on_parse)
        self._revision = revision
        self._clean_at: int | None = None
        """The list revision at which nothing was pending (``None``: not known)."""
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
        revision = self._revision() if self._revision is not None else None
        if revision is not None and revision == self._clean_at:
            return None
        pending = self.indexer.pending()
        if not pending:
            self._clean_at = revision
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
