"""Search results grouped per task: several matches, relevance order, agent and date filters,
snippets without tool names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hangar.executor.service import Executor

from .sessions import claude_session


def _search(executor: Executor, query: str, **extra: Any) -> list[dict[str, Any]]:
    results = executor.handle("runtime.tasks.search", {"query": query, **extra})["results"]
    assert isinstance(results, list)
    return results


def test_a_task_carries_its_matches_newest_first(executor: Executor, claude_home: Path) -> None:
    turns = [{"user": f"question {n} about the ocelot", "assistant": "noted"} for n in range(8)]
    claude_session(claude_home, "61111111-1111-4111-8111-111111111111", "/p/a", turns)
    (hit,) = _search(executor, "ocelot")
    assert hit["matchCount"] == 8  # the title repeats the first question: not counted
    indexes = [m["messageIndex"] for m in hit["matches"]]
    assert len(indexes) == 5 and indexes == sorted(indexes, reverse=True)
    assert hit["messageIndex"] == indexes[0]  # the result points at the newest match
    first = hit["matches"][0]
    assert first["role"] == "user" and "question 7 about the «ocelot»" in first["snippet"]
    assert first["createdAt"].startswith("2026-11-01")


def test_relevance_puts_the_densest_match_first(executor: Executor, claude_home: Path) -> None:
    dense = [{"user": "tapir tapir tapir tapir", "assistant": "ok"}]
    sparse = [
        {"user": "a long note that mentions one tapir among many other words", "assistant": "x"}
    ]
    claude_session(claude_home, "62222222-2222-4222-8222-222222222222", "/p/a", dense, 0)
    claude_session(claude_home, "63333333-3333-4333-8333-333333333333", "/p/a", sparse, 100)
    by_date = _search(executor, "tapir")
    by_rank = _search(executor, "tapir", order="relevance")
    assert by_date[0]["snippet"].startswith("a long note")  # newest first
    assert by_rank[0]["snippet"].startswith("«tapir» «tapir» «tapir»")
    assert [r["localTaskId"] for r in by_rank] == [r["localTaskId"] for r in by_date][::-1]
    assert by_rank[0]["score"] < by_rank[1]["score"]
    # By date each task keeps the score of the row it points at: with one matching message
    # per task, the same score as by relevance.
    scores = {r["localTaskId"]: r["score"] for r in by_rank}
    assert {r["localTaskId"]: r["score"] for r in by_date} == scores
    assert all(isinstance(score, float) for score in scores.values())


def test_agent_and_date_filters(executor: Executor, claude_home: Path) -> None:
    early = [{"user": "the quokka plan", "assistant": "ok"}]
    late = [{"user": "the quokka review", "assistant": "ok"}]
    claude_session(claude_home, "64444444-4444-4444-8444-444444444444", "/p/a", early, 0)
    claude_session(claude_home, "65555555-5555-4555-8555-555555555555", "/p/a", late, 2000)
    both = _search(executor, "quokka")
    assert len(both) == 2
    days = sorted(r["updatedAt"][:10] for r in both)
    assert days[0] != days[1]
    after = _search(executor, "quokka", updatedAfter=days[1])
    assert [r["updatedAt"][:10] for r in after] == [days[1]]
    before = _search(executor, "quokka", updatedBefore=days[1])
    assert [r["updatedAt"][:10] for r in before] == [days[0]]
    assert len(_search(executor, "quokka", runtime="claude")) == 2
    assert _search(executor, "quokka", runtime="codex") == []


def test_snippets_of_tool_calls_hold_the_command_not_the_tool_name(
    executor: Executor, claude_home: Path
) -> None:
    turns = [{"user": "run it", "assistant": "done", "command": "make lemming-check"}]
    claude_session(claude_home, "66666666-6666-4666-8666-666666666666", "/p/a", turns)
    (hit,) = _search(executor, "lemming")
    assert "«lemming»-check" in hit["snippet"] and "Bash" not in hit["snippet"]
    assert _search(executor, "Bash") == []  # the tool's name is not indexed
