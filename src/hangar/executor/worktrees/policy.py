"""Which worktrees automatic cleanup removes (RW-200..202, RW-208/209): a pure function.

A worktree is a candidate only when its directory is present, it is not permanent, this
executor has at least one task record in it, every one of those tasks is archived, none is
running. Candidates are ordered by last use, newest first (the
later of the worktree's own last use and its tasks' ``updatedAt``); the first ``keepCount``
stay, the rest are removed (each through the snapshot path). Everything else is kept, with
the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class TaskFacts:
    archived: bool
    running: bool
    updated_at: str


@dataclass(frozen=True)
class PruneFacts:
    worktree_id: str
    present: bool
    permanent: bool
    last_used_at: str
    tasks: tuple[TaskFacts, ...]


def _instant(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def last_use(facts: PruneFacts) -> datetime:
    return max([_instant(facts.last_used_at), *(_instant(t.updated_at) for t in facts.tasks)])


def _blocker(facts: PruneFacts) -> str | None:
    if not facts.present:
        return "not_present"
    if facts.permanent:
        return "permanent"
    if not facts.tasks:
        return "no_task_record"
    if any(t.running for t in facts.tasks):
        return "running_task"
    if not all(t.archived for t in facts.tasks):
        return "unarchived_task"
    return None


def decide(worktrees: list[PruneFacts], keep_count: int) -> dict[str, str]:
    """``worktreeId → "remove"`` or ``"keep:<reason>"`` for every worktree given."""
    decisions: dict[str, str] = {}
    candidates: list[PruneFacts] = []
    for facts in worktrees:
        reason = _blocker(facts)
        if reason is None:
            candidates.append(facts)
        else:
            decisions[facts.worktree_id] = f"keep:{reason}"
    candidates.sort(key=lambda f: (last_use(f), f.worktree_id), reverse=True)
    for rank, facts in enumerate(candidates):
        decisions[facts.worktree_id] = "keep:within_keep_count" if rank < keep_count else "remove"
    return decisions
