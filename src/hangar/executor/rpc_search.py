"""``runtime.tasks.search`` and ``runtime.index.*`` (RW-049..RW-058).

``runtime.tasks.search {query, limit?, includeArchived?, includeToolOutput?, projectId?}`` →
``{"results": [SearchHit…]}`` (see :mod:`hangar.executor.search` for the rules and
:mod:`hangar.executor.search_text` for the query language). The index is brought up to date
first; while a first, large build runs in the background the answer carries ``"indexing":
{tasksTotal, tasksDone, totalBytes, doneBytes, errors}`` and the results found so far.
Searching reads only the device's own index, never a hub cache (RW-050, RW-061).

``runtime.index.run {}`` (called once by ``hangar serve``'s index worker at start) brings the
search index up to date and resumes deletes left queued by a previous run; it returns
``{indexed, errors, totalBytes, pendingDeletes}``. ``runtime.index.status {}`` returns the
progress of the running or last build.
"""

from __future__ import annotations

import msgspec

from hangar.executor.core import ExecutorCore
from hangar.executor.rpc import Handler
from hangar.executor.search import search
from hangar.executor.search_index import IndexProgress as Progress
from hangar.executor.search_text import compile_query
from hangar.protocol import methods as m
from hangar.protocol.tasks import (
    IndexProgress,
    IndexRun,
    IndexStatus,
    NoArguments,
    SearchRequest,
    SearchResults,
)


def _progress(state: Progress) -> IndexProgress:
    return msgspec.convert(state.as_json(), IndexProgress)


def search_tasks(executor: ExecutorCore, request: SearchRequest) -> SearchResults:
    compile_query(request.query)  # a bad query fails before any indexing work
    progress = executor.search.ensure()
    results = search(executor.db, executor.device, request)
    if progress is not None:
        results.indexing = _progress(progress)
    return results


def index_run(executor: ExecutorCore, request: NoArguments) -> IndexRun:
    pending = executor.resume_deletes()
    state = executor.search.sync()
    return IndexRun(
        indexed=state.tasks_done,
        errors=state.errors,
        total_bytes=state.total_bytes,
        pending_deletes=pending,
    )


def index_status(executor: ExecutorCore, request: NoArguments) -> IndexStatus:
    service = executor.search
    return msgspec.convert({"running": service.indexing, **service.progress.as_json()}, IndexStatus)


HANDLERS: dict[str, Handler] = {
    m.TASKS_SEARCH.name: search_tasks,
    m.INDEX_RUN.name: index_run,
    m.INDEX_STATUS.name: index_status,
}
