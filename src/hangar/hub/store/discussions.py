"""Discussions in the hub database: the talk before an issue (``hangar discuss -- CLI …``).

A discussion holds only what its user saw and said: ``user`` questions, ``assistant``
answers and ``plan`` turns (the agent's proposed plans), each stored once per (discussion,
source, sourceKey). There is no role for thinking, tool calls, tool results or status events,
so they cannot enter the record whatever a client sends (LR-072, LR-073).

Contracts:

- :func:`open_discussion` creates a discussion, or resumes the unfinished (``open``) one of
  the same provider whose ``providerSessionId`` matches (LR-069, LR-119). Whoever opens it
  holds a *lease* for :data:`LEASE_SECONDS`, renewed by :func:`renew` (the CLI's heartbeat)
  and given back on exit; opening a discussion another client holds fails with
  :class:`DiscussionInUse` (HTTP 409), so two terminals never drive one discussion.
- :func:`add_turn` is idempotent by (source, sourceKey); the first question names an
  untitled discussion. Text arrives redacted (the API redacts before the write lock is taken).
- :func:`create_issue` makes the issue from a saved plan turn — its description is that
  turn's Markdown exactly, and ``planDigest`` (SHA-256 of what the user confirmed) must match
  it — and links the discussion as the issue's source in the same transaction (LR-087..
  LR-089). Asking again returns the issue already made (a retried request never makes two).
- :func:`link` records the local run that continues the discussion (or links an existing
  issue).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from hangar.errors import HangarError, NotFoundError, UsageError
from hangar.hub.store import issues as issues_repo
from hangar.hub.store import schema
from hangar.hub.store.workspaces import Workspace, get_member, iso
from hangar.hub.store.writes import transaction
from hangar.localrun.discussion.plans import plan_digest

LEASE_SECONDS = 90
"""How long an opened discussion stays held without a heartbeat (the CLI beats every 30 s)."""
ROLES = ("user", "assistant", "plan")
STATUSES = ("open", "issue_created")
EXECUTION_MODES = ("continue_in_cli", "agent", "create_only")
TITLE_CHARS = 120

discussions_t = schema.discussions
turns_t = schema.discussion_turns


@dataclass(eq=False)
class DiscussionInUse(HangarError):
    """Another terminal holds the discussion (HTTP 409 ``discussion_in_use``)."""

    discussion_id: str = ""
    held_until: str = ""
    code: ClassVar[str] = "discussion_in_use"
    http_status: ClassVar[int] = 409

    def render(self) -> str:
        return (
            f"discussion {self.discussion_id} is in use in another terminal (until it ends, "
            f"or its hold lapses at {self.held_until})"
        )

    def details(self) -> dict[str, Any]:
        return {"discussionId": self.discussion_id, "heldUntil": self.held_until}


@dataclass(eq=False)
class DiscussionConflict(HangarError):
    """The request does not fit the discussion's state (HTTP 409 ``conflict``)."""

    code: ClassVar[str] = "conflict"
    http_status: ClassVar[int] = 409


@dataclass(eq=False)
class PlanChanged(HangarError):
    """The plan the user confirmed is not the one saved (HTTP 409 ``plan_changed``)."""

    code: ClassVar[str] = "plan_changed"
    http_status: ClassVar[int] = 409


def now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)  # SQLite hands back naive UTC
    return value


def _row(conn: Connection, workspace: Workspace, discussion_id: str, *, lock: bool = False) -> Any:
    """The discussion's row; ``lock``: held until the transaction ends (PostgreSQL's row
    lock; SQLite has one writer at a time anyway), so concurrent writers queue on it."""
    query = sa.select(discussions_t).where(
        discussions_t.c.id == discussion_id, discussions_t.c.workspace_id == workspace.id
    )
    row = conn.execute(query.with_for_update() if lock else query).first()
    if row is None:
        raise NotFoundError(kind="discussion", key=discussion_id)
    return row


def _turn_json(row: Any) -> dict[str, Any]:
    return {
        "seq": row.seq,
        "role": row.role,
        "content": row.content,
        "source": row.source,
        "sourceKey": row.source_key,
        "createdAt": iso(row.created_at),
    }


def _plan_turn(conn: Connection, discussion_id: str, source_key: str | None) -> Any:
    """The turn a plan is made from: the one named by ``source_key`` (a plan or an answer),
    else the latest plan, else the latest answer; ``None`` when there is none."""
    query = sa.select(turns_t).where(turns_t.c.discussion_id == discussion_id)
    if source_key:
        query = query.where(
            turns_t.c.source_key == source_key, turns_t.c.role.in_(("plan", "assistant"))
        )
        return conn.execute(query.order_by(turns_t.c.seq.desc())).first()
    for role in ("plan", "assistant"):
        found = conn.execute(
            query.where(turns_t.c.role == role).order_by(turns_t.c.seq.desc())
        ).first()
        if found is not None:
            return found
    return None


def _json(conn: Connection, workspace: Workspace, row: Any, turns: bool) -> dict[str, Any]:
    issue_key = None
    if row.issue_id is not None:
        number = conn.execute(
            sa.select(schema.issues.c.number).where(schema.issues.c.id == row.issue_id)
        ).scalar()
        issue_key = f"{workspace.key_prefix}-{number}" if number is not None else None
    count = conn.execute(
        sa.select(sa.func.count()).where(turns_t.c.discussion_id == row.id)
    ).scalar_one()
    plan = _plan_turn(conn, row.id, None)
    held = _aware(row.held_until)
    out: dict[str, Any] = {
        "id": row.id,
        "cliName": row.cli_name,
        "provider": row.provider,
        "providerSessionId": row.provider_session_id,
        "title": row.title,
        "status": row.status,
        "workDir": row.work_dir,
        "issueId": row.issue_id,
        "issueKey": issue_key,
        "runId": row.run_id,
        "executionMode": row.execution_mode,
        "inUse": bool(row.holder) and held is not None and held > now(),
        "heldUntil": iso(held) if row.holder else None,
        "turnCount": count,
        "plan": None
        if plan is None
        else {
            "content": plan.content,
            "source": plan.source,
            "sourceKey": plan.source_key,
            "role": plan.role,
        },
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    if turns:
        rows = conn.execute(
            sa.select(turns_t).where(turns_t.c.discussion_id == row.id).order_by(turns_t.c.seq)
        ).all()
        out["turns"] = [_turn_json(t) for t in rows]
    return out


def get_discussion(
    engine: Engine, workspace: Workspace, discussion_id: str, *, turns: bool = True
) -> dict[str, Any]:
    with engine.connect() as conn:
        return _json(conn, workspace, _row(conn, workspace, discussion_id), turns)


def list_discussions(
    engine: Engine,
    workspace: Workspace,
    *,
    status: str | None = None,
    provider: str | None = None,
    limit: int = 200,
) -> list[dict[str, Any]]:
    """Discussions newest activity first (without their turns)."""
    if status is not None and status not in STATUSES:
        raise UsageError(f"status must be one of {', '.join(STATUSES)}")
    query = sa.select(discussions_t).where(discussions_t.c.workspace_id == workspace.id)
    if status is not None:
        query = query.where(discussions_t.c.status == status)
    if provider:
        query = query.where(discussions_t.c.provider == provider)
    query = query.order_by(discussions_t.c.updated_at.desc(), discussions_t.c.id).limit(limit)
    with engine.connect() as conn:
        return [_json(conn, workspace, row, False) for row in conn.execute(query).all()]


def _take_lease(conn: Connection, row: Any, client_id: str, stamp: datetime) -> None:
    held = _aware(row.held_until)
    if row.holder and row.holder != client_id and held is not None and held > stamp:
        raise DiscussionInUse(discussion_id=row.id, held_until=iso(held) or "")
    conn.execute(
        sa.update(discussions_t)
        .where(discussions_t.c.id == row.id)
        .values(
            holder=client_id,
            held_until=stamp + timedelta(seconds=LEASE_SECONDS),
            updated_at=stamp,
        )
    )


def open_discussion(
    engine: Engine, workspace: Workspace, fields: dict[str, Any]
) -> tuple[dict[str, Any], bool]:
    """Create a discussion or resume the open one with the same provider session; returns
    (discussion, created). The caller holds it afterwards (see the module docstring)."""
    provider = str(fields["provider"])
    session_id = fields.get("providerSessionId") or None
    client_id = str(fields["clientId"])
    stamp = now()
    with transaction(engine) as conn:
        existing = None
        if session_id is not None:
            existing = conn.execute(
                sa.select(discussions_t)
                .where(
                    discussions_t.c.workspace_id == workspace.id,
                    discussions_t.c.provider == provider,
                    discussions_t.c.provider_session_id == session_id,
                    discussions_t.c.status == "open",
                )
                .order_by(discussions_t.c.updated_at.desc())
                .with_for_update()
            ).first()
        if existing is not None:
            _take_lease(conn, existing, client_id, stamp)
            discussion_id, created = str(existing.id), False
        else:
            discussion_id, created = str(uuid.uuid4()), True
            conn.execute(
                sa.insert(discussions_t).values(
                    id=discussion_id,
                    workspace_id=workspace.id,
                    owner_id=workspace.owner_id,
                    cli_name=str(fields.get("cliName") or provider),
                    provider=provider,
                    provider_session_id=session_id,
                    title="",
                    status="open",
                    work_dir=str(fields.get("workDir") or ""),
                    holder=client_id,
                    held_until=stamp + timedelta(seconds=LEASE_SECONDS),
                    created_at=stamp,
                    updated_at=stamp,
                )
            )
    return get_discussion(engine, workspace, discussion_id), created


def renew(
    engine: Engine,
    workspace: Workspace,
    discussion_id: str,
    client_id: str,
    *,
    provider_session_id: str | None = None,
    release: bool = False,
) -> dict[str, Any]:
    """The holder's heartbeat: keep (or, with ``release``, give back) the lease, and record
    the provider session id once the CLI reports it."""
    stamp = now()
    with transaction(engine) as conn:
        row = _row(conn, workspace, discussion_id, lock=True)
        _take_lease(conn, row, client_id, stamp)
        values: dict[str, Any] = {"updated_at": stamp}
        if release:
            values.update(holder=None, held_until=None)
        if provider_session_id:
            values["provider_session_id"] = provider_session_id
        conn.execute(
            sa.update(discussions_t).where(discussions_t.c.id == discussion_id).values(**values)
        )
    return get_discussion(engine, workspace, discussion_id, turns=False)


def add_turn(
    engine: Engine,
    workspace: Workspace,
    discussion_id: str,
    turn: dict[str, Any],
) -> tuple[dict[str, Any], bool]:
    """Store one question, answer or plan once per (source, sourceKey); (turn, created)."""
    role = str(turn["role"])
    if role not in ROLES:
        raise UsageError(f"role must be one of {', '.join(ROLES)}")
    content = str(turn.get("content") or "")
    if not content.strip():
        raise UsageError("a turn needs content")
    source, source_key = str(turn["source"]), str(turn["sourceKey"])
    stamp = now()
    with transaction(engine) as conn:
        row = _row(conn, workspace, discussion_id)
        existing = conn.execute(
            sa.select(turns_t).where(
                turns_t.c.discussion_id == discussion_id,
                turns_t.c.source == source,
                turns_t.c.source_key == source_key,
            )
        ).first()
        if existing is not None:
            return _turn_json(existing), False
        seq = conn.execute(
            sa.select(sa.func.coalesce(sa.func.max(turns_t.c.seq), 0)).where(
                turns_t.c.discussion_id == discussion_id
            )
        ).scalar_one()
        values = {
            "discussion_id": discussion_id,
            "seq": seq + 1,
            "role": role,
            "content": content,
            "source": source,
            "source_key": source_key,
            "created_at": stamp,
        }
        conn.execute(sa.insert(turns_t).values(**values))
        changes: dict[str, Any] = {"updated_at": stamp}
        if role == "user" and not row.title:
            changes["title"] = _title(content)
        conn.execute(
            sa.update(discussions_t).where(discussions_t.c.id == discussion_id).values(**changes)
        )
    return _turn_json(SimpleNamespace(**values)), True


def _title(question: str) -> str:
    line = next((part.strip() for part in question.splitlines() if part.strip()), "")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def create_issue(
    engine: Engine, workspace: Workspace, discussion_id: str, fields: dict[str, Any]
) -> tuple[dict[str, Any], bool]:
    """Create the issue from the saved plan and link it (see the module docstring);
    returns (issue, created)."""
    mode = fields.get("mode")
    if mode is not None and mode not in EXECUTION_MODES:
        raise UsageError(f"mode must be one of {', '.join(EXECUTION_MODES)}")
    if mode == "agent":
        _require_agent(engine, workspace, fields.get("assigneeId"))
    stamp = now()
    with transaction(engine) as conn:
        # Claim the discussion first: a concurrent retry waits here and then finds the issue.
        row = _row(conn, workspace, discussion_id, lock=True)
        if row.issue_id is not None:
            number = conn.execute(
                sa.select(schema.issues.c.number).where(schema.issues.c.id == row.issue_id)
            ).scalar_one()
            key, created = f"{workspace.key_prefix}-{number}", False
        else:
            plan = _plan_turn(conn, discussion_id, fields.get("planSourceKey"))
            if plan is None:
                raise UsageError("the discussion has no plan to create an issue from yet")
            if plan_digest(plan.content) != fields.get("planDigest"):
                raise PlanChanged(
                    "the plan you confirmed is not the one saved for this discussion; "
                    "open the card again to see the saved plan"
                )
            issue_fields = {
                k: v for k, v in fields.items() if k not in ("planSourceKey", "planDigest", "mode")
            }
            issue_fields["description"] = plan.content
            number = issues_repo.insert_issue(conn, workspace, issue_fields)
            issue_id = conn.execute(
                sa.select(schema.issues.c.id).where(
                    schema.issues.c.workspace_id == workspace.id,
                    schema.issues.c.number == number,
                )
            ).scalar_one()
            conn.execute(
                sa.update(discussions_t)
                .where(discussions_t.c.id == discussion_id)
                .values(
                    issue_id=issue_id, status="issue_created", execution_mode=mode, updated_at=stamp
                )
            )
            key, created = f"{workspace.key_prefix}-{number}", True
    return issues_repo.get_issue(engine, workspace, key), created


def _require_agent(engine: Engine, workspace: Workspace, member_id: Any) -> None:
    member = get_member(engine, workspace, str(member_id)) if member_id else None
    if member is None or member["role"] != "agent":
        raise UsageError("handing an issue to an agent needs an agent member as its assignee")


def link(
    engine: Engine,
    workspace: Workspace,
    discussion_id: str,
    *,
    issue_key: str,
    run_id: str | None = None,
) -> dict[str, Any]:
    """Link the discussion to ``issue_key`` (its source) and, optionally, the run that goes
    on with it; a discussion linked to another issue is a conflict."""
    stamp = now()
    with transaction(engine) as conn:
        row = _row(conn, workspace, discussion_id, lock=True)
        issue_id = issues_repo.issue_id_for_key(conn, workspace, issue_key)
        if row.issue_id is not None and row.issue_id != issue_id:
            raise DiscussionConflict(f"discussion {discussion_id} is linked to another issue")
        values: dict[str, Any] = {"issue_id": issue_id, "status": "issue_created"}
        values["updated_at"] = stamp
        if run_id is not None:
            run = conn.execute(
                sa.select(schema.local_runs.c.issue_id).where(schema.local_runs.c.id == run_id)
            ).first()
            if run is None:
                raise NotFoundError(kind="local run", key=run_id)
            if run.issue_id != issue_id:
                raise DiscussionConflict(f"local run {run_id} belongs to another issue")
            values.update(run_id=run_id, execution_mode="continue_in_cli")
        try:
            conn.execute(
                sa.update(discussions_t).where(discussions_t.c.id == discussion_id).values(**values)
            )
        except sa.exc.IntegrityError:
            raise DiscussionConflict(
                f"issue {issue_key} is already the issue of another discussion"
            ) from None
    return get_discussion(engine, workspace, discussion_id, turns=False)


def for_issue(engine: Engine, workspace: Workspace, issue_id: str) -> dict[str, Any] | None:
    """The discussion an issue was created from, if any (without turns)."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(discussions_t).where(
                discussions_t.c.workspace_id == workspace.id, discussions_t.c.issue_id == issue_id
            )
        ).first()
        return _json(conn, workspace, row, False) if row is not None else None
