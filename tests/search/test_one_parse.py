"""One parse per change: the LocalTask index and the search index share each full read.

The executor's background indexer (``index_pending``) and the search indexer read through one
engine and tell each other what they parsed, so a changed session is parsed once, whichever
runs first, and both indexes (the list's counts, the search rows) come out of that parse.
"""

from __future__ import annotations

from pathlib import Path

from hangar.executor.service import Executor

from .sessions import claude_lines, claude_session

SESSION = "11111111-aaaa-4aaa-8aaa-000000000001"
TURNS = [{"user": "migrate the zanzibar schema", "assistant": "done, the schema moved"}] * 3


def _found(executor: Executor, word: str) -> bool:
    return bool(executor.handle("runtime.tasks.search", {"query": word})["results"])


def _count(executor: Executor) -> int:
    tasks = executor.handle("runtime.tasks.list", {})["tasks"]
    return int(tasks[0]["messageCount"])


def test_the_background_indexer_feeds_the_search_index(
    executor: Executor, claude_home: Path
) -> None:
    claude_session(claude_home, SESSION, "/srv/a", TURNS)
    executor.handle("runtime.tasks.list", {})
    stats = executor.search.indexer.stats
    assert executor.index_pending() == 1 and stats.full_parses == 1
    assert _found(executor, "zanzibar")
    assert stats.full_parses == 1  # the search did not read the session again
    assert _count(executor) == 6

    path = claude_home / "projects" / "-srv-a" / f"{SESSION}.jsonl"
    appended = claude_lines(SESSION, "/srv/a", {"user": "now quokka", "assistant": "ok"}, 9)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(appended)
    executor.handle("runtime.tasks.list", {})
    before = stats.bytes_read
    assert executor.index_pending() == 1
    assert stats.bytes_read - before == len(appended.encode())  # only the new bytes, once
    assert _found(executor, "quokka") and stats.bytes_read - before == len(appended.encode())
    assert stats.full_parses == 1 and _count(executor) == 8


def test_the_search_index_feeds_the_list(executor: Executor, claude_home: Path) -> None:
    claude_session(claude_home, SESSION, "/srv/a", TURNS)
    assert _found(executor, "zanzibar")
    assert executor.search.indexer.stats.full_parses == 1
    assert executor.index_pending() == 0  # the list already learned from that parse
    assert _count(executor) == 6


def test_a_parallel_first_build_feeds_the_list(executor: Executor, claude_home: Path) -> None:
    for n in range(3):
        claude_session(claude_home, SESSION[:-1] + str(n), f"/srv/p{n}", TURNS[: n + 1])
    executor.handle("runtime.tasks.list", {})
    progress = executor.search.indexer.sync(workers=2, parallel_min_bytes=0)
    assert progress.tasks_done == 3 and progress.errors == 0
    assert executor.index_pending() == 0
    counts = sorted(t["messageCount"] for t in executor.handle("runtime.tasks.list", {})["tasks"])
    assert counts == [2, 4, 6]
