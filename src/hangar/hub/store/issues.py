"""The issue tracker's storage: issues and their labels over SQLAlchemy Core.

Every function takes an :class:`~sqlalchemy.engine.Engine` and returns plain dicts in the API's
camelCase shape, so the HTTP layer and the CLI print exactly what is stored. Only portable Core
constructs are used (SQLite and PostgreSQL). Issue numbers come from one ``UPDATE … RETURNING``
on the workspace row, the first statement of the creating transaction, so concurrent creators
never get the same number (the unique ``(workspace_id, number)`` constraint backs that up).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from hangar.errors import NotFoundError, UsageError, shown
from hangar.hub.store import schema
from hangar.hub.store.workspaces import Workspace, iso, label_ids_for_names
from hangar.hub.store.writes import transaction

STATUSES = ("backlog", "todo", "in_progress", "in_review", "done", "cancelled")
PRIORITIES = ("none", "urgent", "high", "medium", "low")
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9]{0,9})-([1-9][0-9]{0,8})$")


@dataclass(frozen=True)
class IssueFilter:
    """List filters; ``None`` means "any"."""

    status: Sequence[str] | None = None
    priority: Sequence[str] | None = None
    project_id: str | None = None
    assignee_id: str | None = None
    label: str | None = None
    q: str | None = None
    parent_key: str | None = None
    """Only the sub-issues of this issue."""


def parse_key(workspace: Workspace, key: str) -> int:
    """The issue number of ``key`` (``HGR-12`` → 12); a key of another workspace is not found."""
    match = _KEY.match(key.strip())
    if not match or match.group(1).upper() != workspace.key_prefix:
        raise NotFoundError(kind="issue", key=key)
    return int(match.group(2))


def _choice(name: str, value: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise UsageError(f"{name} must be one of {', '.join(allowed)}; got {shown(str(value))!r}")
    return value


def _check_dates(start: date | None, due: date | None) -> None:
    if start and due and due < start:
        raise UsageError("dueDate must not be before startDate")


def _require_row(conn: Connection, table: sa.Table, row_id: str, workspace_id: str) -> None:
    found = conn.execute(
        sa.select(table.c.id).where(table.c.id == row_id, table.c.workspace_id == workspace_id)
    ).first()
    if found is None:
        raise UsageError(f"unknown {table.name[:-1]} id {shown(str(row_id))!r}")


def issue_id_for_key(conn: Connection, workspace: Workspace, key: str) -> str:
    """The row id of issue ``key``; :class:`NotFoundError` when there is none."""
    number = parse_key(workspace, key)
    row = conn.execute(
        sa.select(schema.issues.c.id).where(
            schema.issues.c.workspace_id == workspace.id, schema.issues.c.number == number
        )
    ).first()
    if row is None:
        raise NotFoundError(kind="issue", key=key)
    return str(row.id)


def _allocate_number(conn: Connection, workspace_id: str) -> int:
    ws = schema.workspaces
    row = conn.execute(
        sa.update(ws)
        .where(ws.c.id == workspace_id)
        .values(next_issue_number=ws.c.next_issue_number + 1)
        .returning(ws.c.next_issue_number)
    ).one()
    return int(row[0]) - 1


def create_issue(engine: Engine, workspace: Workspace, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Create an issue from API fields (camelCase keys, already type-checked)."""
    with transaction(engine) as conn:
        number = insert_issue(conn, workspace, fields)
    return get_issue(engine, workspace, f"{workspace.key_prefix}-{number}")


def insert_issue(
    conn: Connection,
    workspace: Workspace,
    fields: Mapping[str, Any],
    author_id: str | None = None,
) -> int:
    """Create an issue inside the caller's transaction ``conn``, opened by ``author_id``
    (default: the workspace owner, the member the hub authenticates); returns its number (the
    caller reads it back with :func:`get_issue` after committing)."""
    title = str(fields.get("title") or "").strip()
    if not title:
        raise UsageError("title must not be empty")
    status = _choice("status", fields.get("status") or "backlog", STATUSES)
    priority = _choice("priority", fields.get("priority") or "none", PRIORITIES)
    start, due = fields.get("startDate"), fields.get("dueDate")
    _check_dates(start, due)
    now = datetime.now(UTC)
    issue_id = str(uuid.uuid4())
    number = _allocate_number(conn, workspace.id)
    values: dict[str, Any] = {
        "id": issue_id,
        "workspace_id": workspace.id,
        "number": number,
        "title": title,
        "description": fields.get("description") or "",
        "status": status,
        "priority": priority,
        "start_date": start,
        "due_date": due,
        "created_at": now,
        "updated_at": now,
        "author_id": author_id or workspace.owner_id,
    }
    values.update(_references(conn, workspace, fields))
    conn.execute(sa.insert(schema.issues).values(**values))
    _set_labels(conn, workspace, issue_id, fields.get("labels") or ())
    return number


def _references(
    conn: Connection, workspace: Workspace, fields: Mapping[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "projectId" in fields:
        project_id = fields["projectId"]
        if project_id:
            _require_row(conn, schema.projects, project_id, workspace.id)
        out["project_id"] = project_id or None
    if "assigneeId" in fields:
        assignee_id = fields["assigneeId"]
        if assignee_id:
            _require_row(conn, schema.members, assignee_id, workspace.id)
        out["assignee_id"] = assignee_id or None
    if "parentKey" in fields:
        parent_key = fields["parentKey"]
        if parent_key:
            try:
                out["parent_id"] = issue_id_for_key(conn, workspace, parent_key)
            except NotFoundError:
                raise UsageError(f"unknown parent issue {shown(parent_key)!r}") from None
        else:
            out["parent_id"] = None
    return out


def _set_labels(
    conn: Connection, workspace: Workspace, issue_id: str, names: Iterable[str]
) -> None:
    conn.execute(sa.delete(schema.issue_labels).where(schema.issue_labels.c.issue_id == issue_id))
    ids = label_ids_for_names(conn, workspace, names)
    if ids:
        conn.execute(
            sa.insert(schema.issue_labels),
            [{"issue_id": issue_id, "label_id": label_id} for label_id in ids],
        )


def update_issue(
    engine: Engine, workspace: Workspace, key: str, fields: Mapping[str, Any]
) -> dict[str, Any]:
    """Apply a partial update (only keys present in ``fields``); returns the new issue."""
    with transaction(engine) as conn:
        issue_id = issue_id_for_key(conn, workspace, key)
        current = conn.execute(sa.select(schema.issues).where(schema.issues.c.id == issue_id)).one()
        values: dict[str, Any] = {}
        if "title" in fields:
            title = str(fields["title"] or "").strip()
            if not title:
                raise UsageError("title must not be empty")
            values["title"] = title
        if "description" in fields:
            values["description"] = fields["description"] or ""
        if "status" in fields:
            values["status"] = _choice("status", fields["status"] or "", STATUSES)
        if "priority" in fields:
            values["priority"] = _choice("priority", fields["priority"] or "", PRIORITIES)
        if "startDate" in fields:
            values["start_date"] = fields["startDate"]
        if "dueDate" in fields:
            values["due_date"] = fields["dueDate"]
        _check_dates(
            values.get("start_date", current.start_date), values.get("due_date", current.due_date)
        )
        values.update(_references(conn, workspace, fields))
        if values.get("parent_id") == issue_id:
            raise UsageError("an issue cannot be its own parent")
        if "labels" in fields:
            _set_labels(conn, workspace, issue_id, fields["labels"] or ())
        values["updated_at"] = datetime.now(UTC)
        conn.execute(sa.update(schema.issues).where(schema.issues.c.id == issue_id).values(values))
    return get_issue(engine, workspace, key)


def _select_issues(workspace: Workspace) -> sa.Select[Any]:
    issues, parent = schema.issues, schema.issues.alias("parent")
    source = schema.discussions  # the discussion an issue was created from, if any
    author = schema.members.alias("author")
    return (
        sa.select(
            issues,
            parent.c.number.label("parent_number"),
            source.c.id.label("source_discussion_id"),
            author.c.name.label("author_name"),
        )
        .select_from(
            issues.outerjoin(parent, issues.c.parent_id == parent.c.id)
            .outerjoin(source, source.c.issue_id == issues.c.id)
            .outerjoin(author, issues.c.author_id == author.c.id)
        )
        .where(issues.c.workspace_id == workspace.id)
    )


def _labels_of(conn: Connection, issue_ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {issue_id: [] for issue_id in issue_ids}
    if not issue_ids:
        return out
    il, lb = schema.issue_labels, schema.labels
    rows = conn.execute(
        sa.select(il.c.issue_id, lb.c.name)
        .select_from(il.join(lb, il.c.label_id == lb.c.id))
        .where(il.c.issue_id.in_(issue_ids))
        .order_by(lb.c.name)
    )
    for row in rows:
        out[row.issue_id].append(row.name)
    return out


def _as_json(workspace: Workspace, row: Any, labels: list[str]) -> dict[str, Any]:
    prefix = workspace.key_prefix
    return {
        "id": row.id,
        "key": f"{prefix}-{row.number}",
        "number": row.number,
        "title": row.title,
        "description": row.description,
        "status": row.status,
        "priority": row.priority,
        "projectId": row.project_id,
        "assigneeId": row.assignee_id,
        "authorId": row.author_id,
        "authorName": row.author_name,
        "parentKey": f"{prefix}-{row.parent_number}" if row.parent_number else None,
        "labels": labels,
        "startDate": row.start_date.isoformat() if row.start_date else None,
        "dueDate": row.due_date.isoformat() if row.due_date else None,
        "sourceDiscussionId": row.source_discussion_id,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def get_issue(engine: Engine, workspace: Workspace, key: str) -> dict[str, Any]:
    number = parse_key(workspace, key)
    with engine.connect() as conn:
        row = conn.execute(
            _select_issues(workspace).where(schema.issues.c.number == number)
        ).first()
        if row is None:
            raise NotFoundError(kind="issue", key=key)
        return _as_json(workspace, row, _labels_of(conn, [row.id])[row.id])


def list_issues(
    engine: Engine, workspace: Workspace, filters: IssueFilter, limit: int = 500
) -> list[dict[str, Any]]:
    """Issues matching every given filter, newest number first."""
    issues = schema.issues
    query = _select_issues(workspace)
    if filters.status:
        for value in filters.status:
            _choice("status", value, STATUSES)
        query = query.where(issues.c.status.in_(list(filters.status)))
    if filters.priority:
        for value in filters.priority:
            _choice("priority", value, PRIORITIES)
        query = query.where(issues.c.priority.in_(list(filters.priority)))
    if filters.project_id:
        query = query.where(issues.c.project_id == filters.project_id)
    if filters.assignee_id:
        query = query.where(issues.c.assignee_id == filters.assignee_id)
    if filters.label:
        il, lb = schema.issue_labels, schema.labels
        labelled = (
            sa.select(il.c.issue_id)
            .select_from(il.join(lb, il.c.label_id == lb.c.id))
            .where(lb.c.name == filters.label)
        )
        query = query.where(issues.c.id.in_(labelled))
    if filters.parent_key:
        parent = (
            sa.select(issues.c.id)
            .where(issues.c.workspace_id == workspace.id)
            .where(issues.c.number == parse_key(workspace, filters.parent_key))
        )
        query = query.where(issues.c.parent_id == parent.scalar_subquery())
    if filters.q and filters.q.strip():
        needle = filters.q.strip().lower()
        query = query.where(
            sa.or_(
                sa.func.lower(issues.c.title).contains(needle, autoescape=True),
                sa.func.lower(issues.c.description).contains(needle, autoescape=True),
            )
        )
    query = query.order_by(issues.c.number.desc()).limit(limit)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
        labels = _labels_of(conn, [row.id for row in rows])
    return [_as_json(workspace, row, labels[row.id]) for row in rows]
