"""Threaded comments on issues over SQLAlchemy Core.

A comment may answer another comment of the same issue (``parentId``); :func:`list_comments`
returns them flat in creation order with ``parentId`` set, and :func:`thread` nests them.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.errors import UsageError, shown
from hangar.hub.store import schema
from hangar.hub.store.issues import issue_id_for_key
from hangar.hub.store.workspaces import Workspace, iso
from hangar.hub.store.writes import transaction

MAX_BODY = 100_000


def _json(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "parentId": row.parent_id,
        "authorId": row.author_id,
        "authorName": row.author_name,
        "body": row.body,
        "createdAt": iso(row.created_at),
    }


def _select() -> sa.Select[Any]:
    c, m = schema.comments, schema.members
    return sa.select(c, m.c.name.label("author_name")).select_from(
        c.outerjoin(m, c.c.author_id == m.c.id)
    )


def list_comments(engine: Engine, workspace: Workspace, key: str) -> list[dict[str, Any]]:
    c = schema.comments
    with engine.connect() as conn:
        issue_id = issue_id_for_key(conn, workspace, key)
        rows = conn.execute(
            _select().where(c.c.issue_id == issue_id).order_by(c.c.created_at, c.c.id)
        ).all()
    return [_json(r) for r in rows]


def add_comment(
    engine: Engine,
    workspace: Workspace,
    key: str,
    body: str,
    parent_id: str | None = None,
    author_id: str | None = None,
) -> dict[str, Any]:
    """Add a comment by ``author_id`` (default: the owner); a reply must answer this issue."""
    if not body.strip():
        raise UsageError("body must not be empty")
    if len(body) > MAX_BODY:
        raise UsageError(f"body is longer than {MAX_BODY} characters")
    c = schema.comments
    comment_id = str(uuid.uuid4())
    with transaction(engine) as conn:
        issue_id = issue_id_for_key(conn, workspace, key)
        if parent_id is not None:
            parent = conn.execute(
                sa.select(c.c.id).where(c.c.id == parent_id, c.c.issue_id == issue_id)
            ).first()
            if parent is None:
                raise UsageError(f"parentId {shown(parent_id)!r} is not a comment of {key}")
        conn.execute(
            sa.insert(c).values(
                id=comment_id,
                issue_id=issue_id,
                parent_id=parent_id,
                author_id=author_id or workspace.owner_id,
                body=body,
                created_at=datetime.now(UTC),
            )
        )
        row = conn.execute(_select().where(c.c.id == comment_id)).one()
    return _json(row)


def thread(comments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Nest flat comments: each gets ``replies``; roots keep creation order."""
    by_id = {c["id"]: {**c, "replies": []} for c in comments}
    roots: list[dict[str, Any]] = []
    for comment in by_id.values():
        parent = by_id.get(comment["parentId"]) if comment["parentId"] else None
        (parent["replies"] if parent else roots).append(comment)
    return roots
