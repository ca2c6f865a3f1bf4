"""The comment outbox: turns run messages into threaded comments by the comment-sync rules.

Rules (seed LR-162..LR-171), applied to a run whose ``commentsMode`` is ``thread``:

- ``user_input`` becomes a reply under the run's top comment, unless it is a slash command
  that is not commentable (``input.command`` without ``input.commentable``), injected issue
  context (``input.injected``) or the history of an adopted session (``input.adoptedHistory``:
  the rules apply from the adoption on, so a turn begun before it gets no comments).
  Providers never report bare slash commands at all.
- ``final`` becomes a reply only when its turn (``input.turnKey``) has a commentable
  ``user_input`` in the same run. A final whose user input has not arrived yet (spool
  re-ordering) is retried for up to ``FINAL_WAIT`` seconds, then skipped.
- ``text`` of kind ``codex_proposed_plan`` becomes a reply.
- Everything else — tool results, thinking, tool use, errors — never becomes a comment.

Each outbox row is processed in one transaction that writes the comment, links it to the
message and marks the row done, so a crash never produces a comment twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from hangar.hub.context import HubContext
from hangar.hub.store import schema
from hangar.hub.store.local_runs import now
from hangar.hub.store.workspaces import Workspace
from hangar.hub.store.writes import transaction
from hangar.hub.workers.periodic import PeriodicWorker
from hangar.hub.workers.sweeper import SweeperWorker

FINAL_WAIT = 60.0
MAX_ATTEMPTS = 8
BATCH = 25

Publish = Callable[[str, dict[str, Any]], None]

messages_t = schema.local_run_messages
outbox_t = schema.local_run_outbox
runs_t = schema.local_runs


def _commentable_user_input(message: Any) -> bool:
    data = message.input or {}
    if data.get("injected") or data.get("adoptedHistory"):
        return False
    if data.get("command") and not data.get("commentable"):
        return False
    return bool(message.content.strip())


def _turn_has_commentable_input(conn: Connection, message: Any) -> bool:
    turn_key = (message.input or {}).get("turnKey")
    if not turn_key:
        return False
    rows = conn.execute(
        sa.select(messages_t).where(
            messages_t.c.run_id == message.run_id, messages_t.c.type == "user_input"
        )
    ).all()
    return any(
        (row.input or {}).get("turnKey") == turn_key and _commentable_user_input(row)
        for row in rows
    )


def decide(conn: Connection, message: Any) -> str:
    """``comment``, ``skip`` or ``wait`` for one message (see the module docstring)."""
    if message.type == "user_input":
        return "comment" if _commentable_user_input(message) else "skip"
    if message.type == "final":
        if not message.content.strip():
            return "skip"
        return "comment" if _turn_has_commentable_input(conn, message) else "wait"
    if message.type == "text" and (message.input or {}).get("kind") == "codex_proposed_plan":
        return "comment" if message.content.strip() else "skip"
    return "skip"


def _body(message: Any, run: Any, owner: str) -> str:
    if message.type == "user_input":
        return str(message.content)
    return f"**{owner}-local-{run.cli_name}**\n\n{message.content}"


def process_batch(
    engine: Engine,
    workspace: Workspace,
    publish: Publish | None = None,
    limit: int = BATCH,
    at: datetime | None = None,
) -> int:
    """Process rows due at ``at`` (default now); returns how many were settled."""
    settled = 0
    stamp = at or now()
    with engine.connect() as conn:
        due = conn.execute(
            sa.select(outbox_t.c.id)
            .where(outbox_t.c.status == "pending", outbox_t.c.next_attempt_at <= stamp)
            .order_by(outbox_t.c.id)
            .limit(limit)
        ).all()
    changed_issues: set[str] = set()
    for (outbox_id,) in due:
        with transaction(engine) as conn:
            # Several replicas run this worker over one PostgreSQL: the row lock makes one of
            # them process a row and the others skip it (SQLite has one writer anyway).
            row = conn.execute(
                sa.select(outbox_t)
                .where(outbox_t.c.id == outbox_id)
                .with_for_update(skip_locked=True)
            ).first()
            if row is None or row.status != "pending":
                continue
            message = conn.execute(
                sa.select(messages_t).where(messages_t.c.id == row.message_id)
            ).one()
            run = conn.execute(sa.select(runs_t).where(runs_t.c.id == row.run_id)).one()
            verdict = decide(conn, message)
            if run.comments_mode != "thread" or run.top_comment_id is None:
                verdict = "skip"
            age = (stamp - _aware(message.created_at)).total_seconds()
            if verdict == "wait" and (age > FINAL_WAIT or row.attempts + 1 >= MAX_ATTEMPTS):
                verdict = "skip"
            if verdict == "wait":
                delay = min(2**row.attempts, 15)
                conn.execute(
                    sa.update(outbox_t)
                    .where(outbox_t.c.id == outbox_id)
                    .values(
                        attempts=row.attempts + 1,
                        next_attempt_at=stamp + timedelta(seconds=delay),
                        last_error="turn has no commentable user input yet",
                    )
                )
                continue
            values: dict[str, Any] = {"status": "done", "processed_at": stamp}
            if verdict == "comment":
                comment_id = str(uuid.uuid4())
                owner = conn.execute(
                    sa.select(schema.members.c.name).where(schema.members.c.id == run.owner_id)
                ).scalar()
                conn.execute(
                    sa.insert(schema.comments).values(
                        id=comment_id,
                        issue_id=run.issue_id,
                        parent_id=run.top_comment_id,
                        author_id=run.owner_id,
                        body=_body(message, run, str(owner or "owner")),
                        created_at=_aware(message.created_at),  # keeps the run's order
                    )
                )
                conn.execute(
                    sa.update(messages_t)
                    .where(messages_t.c.id == message.id)
                    .values(comment_id=comment_id)
                )
                changed_issues.add(run.issue_id)
            else:
                values["status"] = "skipped"
            conn.execute(sa.update(outbox_t).where(outbox_t.c.id == outbox_id).values(**values))
            settled += 1
    if publish is not None and changed_issues:
        with engine.connect() as conn:
            numbers = conn.execute(
                sa.select(schema.issues.c.number).where(schema.issues.c.id.in_(changed_issues))
            ).scalars()
            for number in numbers:
                publish("issue.changed", {"key": f"{workspace.key_prefix}-{number}"})
    return settled


def _aware(value: Any) -> Any:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class OutboxWorker(PeriodicWorker):
    """Runs :func:`process_batch` every ``interval`` seconds on a daemon thread."""

    def __init__(
        self, engine: Engine, workspace: Workspace, publish: Publish, interval: float = 0.5
    ) -> None:
        super().__init__("hangar-outbox", interval)
        self._engine, self._workspace, self._publish = engine, workspace, publish

    def step(self) -> None:
        while process_batch(self._engine, self._workspace, self._publish) >= BATCH:
            pass


def start_local_run_workers(ctx: HubContext) -> list[OutboxWorker | SweeperWorker]:
    """The hub's background workers for local runs: the comment outbox and the sweeper."""
    publish = ctx.events.publish
    return [
        OutboxWorker(ctx.engine, ctx.workspace, publish).start(),
        SweeperWorker(ctx.engine, publish).start(),
    ]
