"""Local runs in the hub database: runs, their messages (execution log), usage, run tokens.

Contracts:

- :func:`create_run` is idempotent by (workspace, source, sourceKey): the same key returns the
  same run (its issue must match, else :class:`RunConflictError`) and the same run-scoped
  token, so a retried create never cuts off the agent that holds it. The caller derives the
  token from the run id with a secret of its own (``mint_token``; the hub keys an HMAC of the
  run id with its token), so nothing that could recreate a token is stored, only the token's
  SHA-256, and a new hub token replaces every run token.
- A run-scoped token grants something only while its run is ``running``
  (:func:`grant_for_token`).
- :func:`patch_run` records a heartbeat on every call; once a run is ``completed``, ``failed``
  or ``cancelled`` its status, exit code and error never change again (terminal is sticky).
- :func:`add_message` stores a message once per (run, source, sourceKey) with the next per-run
  ``seq``; it returns ``created=False`` (and the stored message) for a duplicate. It stores
  the message as given: the caller (the API edge) has validated, redacted and bounded it
  (:meth:`~hangar.model.run_messages.RunMessage.prepared`), so no redaction ever runs while
  the write lock is held. :func:`add_messages` does the same for a list, in order, in one
  transaction. Messages that may become comments get an outbox row in the same
  transaction (see :mod:`hangar.hub.workers.outbox`), unless the caller says the message
  may not (``comments=False``: an adopted session's history). A message carrying a committed
  checklist update (``input.checklist``) updates the run's list in the same transaction
  (:mod:`hangar.hub.store.run_checklists`).
- :func:`list_messages` returns at most ``limit`` messages and stops early once their text
  passes :data:`PAGE_CHARS` (always at least one), so a page stays bounded.
- All writes go through one lock per process (one writer per SQLite database).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from hangar.errors import HangarError, NotFoundError, UsageError
from hangar.hub.store import comments as comments_repo
from hangar.hub.store import issues as issues_repo
from hangar.hub.store import run_checklists, schema
from hangar.hub.store.workspaces import Workspace, iso
from hangar.hub.store.writes import transaction
from hangar.model.run_messages import (
    MAX_TEXT_CHARS,
    RunMessage,
    UsageEntry,
    bounded_text,
    checklist_of,
)

TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = ("running", *sorted(TERMINAL))
FOLLOWING = "following"
"""An adopted session's run while hangar follows the session (:mod:`hangar.hub.adoption`):
never swept for silence, and ended only by a ``PATCH`` to a terminal status."""
COMMENT_MODES = ("thread", "off")
TOKEN_PREFIX = "hgrun_"
_COMMENT_MODES: dict[str, str] = {}
"""Comments mode per run id (it never changes once a run exists)."""

PAGE_CHARS = 4 * 1024 * 1024
"""A page of run messages stops once their text passes this many characters."""

runs_t = schema.local_runs
messages_t = schema.local_run_messages


@dataclass(eq=False)
class RunConflictError(HangarError):
    """A run sourceKey already bound to another issue (HTTP 409)."""

    code: ClassVar[str] = "conflict"
    http_status: ClassVar[int] = 409


def now() -> datetime:
    return datetime.now(UTC)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def run_json(row: Any, issue_key: str) -> dict[str, Any]:
    return {
        "id": row.id,
        "issueId": row.issue_id,
        "issueKey": issue_key,
        "workspaceId": row.workspace_id,
        "cliName": row.cli_name,
        "status": row.status,
        "exitCode": row.exit_code,
        "error": row.error,
        "workDir": row.work_dir,
        "contextDir": row.context_dir,
        "commentsMode": row.comments_mode,
        "noStatusUpdate": bool(row.no_status_update),
        "topCommentId": row.top_comment_id,
        "source": row.source,
        "sourceKey": row.source_key,
        "activeMs": row.active_ms,
        "startedAt": iso(row.started_at),
        "heartbeatAt": iso(row.heartbeat_at),
        "completedAt": iso(row.completed_at),
        "checklist": run_checklists.checklist_json(row.checklist, row.id, row.cli_name),
    }


def adoption_json(row: Any) -> dict[str, Any]:
    """An adopted session's link (``run.adoption``): where hangar follows it."""
    return {
        "deviceId": row.device_id,
        "localTaskId": row.local_task_id,
        "runtime": row.runtime,
        "nextIndex": row.next_index,
        "adoptedAt": iso(row.adopted_at),
        "syncedAt": iso(row.synced_at),
        "lastError": row.last_error,
    }


def _with_adoptions(conn: Connection, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    table = schema.local_run_adoptions
    ids = [run["id"] for run in runs]
    rows = conn.execute(sa.select(table).where(table.c.run_id.in_(ids))).all() if ids else []
    found = {row.run_id: adoption_json(row) for row in rows}
    for run in runs:
        run["adoption"] = found.get(run["id"])
    return runs


def message_json(row: Any) -> dict[str, Any]:
    """A stored message as the API shows it. Rows stored before fields were bounded are
    bounded here, on the way out."""
    content, cut = row.content, bool(row.truncated)
    output = row.output
    if len(content) > MAX_TEXT_CHARS:
        content, cut = bounded_text(content)[0], True
    if output is not None and len(output) > MAX_TEXT_CHARS:
        output, cut = bounded_text(output)[0], True
    out: dict[str, Any] = {
        "seq": row.seq,
        "type": row.type,
        "content": content,
        "source": row.source,
        "sourceKey": row.source_key,
        "createdAt": iso(row.created_at),
        "commentId": row.comment_id,
    }
    if row.tool is not None:
        out["tool"] = row.tool
    if row.input:
        out["input"] = row.input
    if output is not None:
        out["output"] = output
    if cut:
        out["truncated"] = True
    return out


def _message_chars(message: dict[str, Any]) -> int:
    size = len(message["content"]) + len(message.get("output") or "")
    return size + (len(str(message["input"])) if "input" in message else 0)


def _key_of(conn: Connection, workspace: Workspace, issue_id: str) -> str:
    number = conn.execute(
        sa.select(schema.issues.c.number).where(schema.issues.c.id == issue_id)
    ).scalar_one()
    return f"{workspace.key_prefix}-{number}"


def issue_key_of(conn: Connection, workspace: Workspace, issue_id: str) -> str:
    return _key_of(conn, workspace, issue_id)


def _run_row(conn: Connection, run_id: str) -> Any:
    row = conn.execute(sa.select(runs_t).where(runs_t.c.id == run_id)).first()
    if row is None:
        raise NotFoundError(kind="local run", key=run_id)
    return row


def create_run(
    engine: Engine,
    workspace: Workspace,
    issue_key: str,
    fields: dict[str, Any],
    mint_token: Callable[[str], str],
    *,
    started_from: str = ".",
    status: str = "running",
    top_comment: str | None = None,
) -> tuple[dict[str, Any], bool, str]:
    """Create (or find, by source+sourceKey) a run of ``issue_key``; returns (run, new, token).

    ``mint_token(run_id)`` is the run's token: the same for the same run id, and starting with
    :data:`TOKEN_PREFIX`. ``started_from`` is the (already redacted) folder the top comment
    names; ``top_comment`` replaces the whole text of that comment."""
    cli_name = str(fields.get("cliName") or "").strip()
    if not cli_name:
        raise UsageError("cliName is required")
    mode = str(fields.get("commentsMode") or "thread")
    if mode not in COMMENT_MODES:
        raise UsageError(f"commentsMode must be one of {', '.join(COMMENT_MODES)}")
    source = str(fields.get("source") or "hangar-cli")
    source_key = fields.get("sourceKey") or None
    issue = issues_repo.get_issue(engine, workspace, issue_key)
    with transaction(engine) as conn:
        existing = None
        if source_key is not None:
            existing = conn.execute(
                sa.select(runs_t).where(
                    runs_t.c.workspace_id == workspace.id,
                    runs_t.c.source == source,
                    runs_t.c.source_key == source_key,
                )
            ).first()
        if existing is not None:
            if existing.issue_id != issue["id"]:
                raise RunConflictError(f"sourceKey {source_key!r} belongs to another issue")
            token = _checked_token(mint_token, existing.id)
            if existing.token_hash != token_digest(token):
                # Minted under an earlier hub secret: the token of this hub replaces it.
                conn.execute(
                    sa.update(runs_t)
                    .where(runs_t.c.id == existing.id)
                    .values(token_hash=token_digest(token))
                )
            return run_json(_run_row(conn, existing.id), issue["key"]), False, token
        run_id = str(uuid.uuid4())
        token = _checked_token(mint_token, run_id)
        stamp = now()
        conn.execute(
            sa.insert(runs_t).values(
                id=run_id,
                workspace_id=workspace.id,
                issue_id=issue["id"],
                owner_id=workspace.owner_id,
                cli_name=cli_name,
                status=status,
                work_dir=str(fields.get("workDir") or ""),
                context_dir=fields.get("contextDir"),
                comments_mode=mode,
                no_status_update=bool(fields.get("noStatusUpdate")),
                source=source,
                source_key=source_key,
                token_hash=token_digest(token),
                started_at=stamp,
                heartbeat_at=stamp,
            )
        )
    if mode == "thread":
        top = comments_repo.add_comment(
            engine,
            workspace,
            issue["key"],
            top_comment or f"Started local `{cli_name}` run from `{started_from}`.",
        )
        with transaction(engine) as conn:
            conn.execute(
                sa.update(runs_t).where(runs_t.c.id == run_id).values(top_comment_id=top["id"])
            )
    if not fields.get("noStatusUpdate") and issue["status"] in ("backlog", "todo"):
        issues_repo.update_issue(engine, workspace, issue["key"], {"status": "in_progress"})
    return get_run(engine, workspace, run_id), True, token


def _checked_token(mint_token: Callable[[str], str], run_id: str) -> str:
    token = mint_token(run_id)
    if not token.startswith(TOKEN_PREFIX):
        raise ValueError(f"run tokens start with {TOKEN_PREFIX!r}")
    return token


def get_run(engine: Engine, workspace: Workspace, run_id: str) -> dict[str, Any]:
    with engine.connect() as conn:
        row = _run_row(conn, run_id)
        run = _with_adoptions(conn, [run_json(row, _key_of(conn, workspace, row.issue_id))])[0]
        usage = conn.execute(
            sa.select(schema.local_run_usage).where(schema.local_run_usage.c.run_id == run_id)
        ).all()
        count = conn.execute(
            sa.select(sa.func.count()).where(messages_t.c.run_id == run_id)
        ).scalar_one()
    run["usage"] = [
        {
            "provider": u.provider,
            "model": u.model,
            "inputTokens": u.input_tokens,
            "outputTokens": u.output_tokens,
            "cacheReadTokens": u.cache_read_tokens,
            "cacheWriteTokens": u.cache_write_tokens,
        }
        for u in usage
    ]
    run["messageCount"] = count
    return run


def list_runs(engine: Engine, workspace: Workspace, issue_key: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        issue_id = issues_repo.issue_id_for_key(conn, workspace, issue_key)
        rows = conn.execute(
            sa.select(runs_t)
            .where(runs_t.c.issue_id == issue_id)
            .order_by(runs_t.c.started_at.desc(), runs_t.c.id)
        ).all()
        key = issue_key.upper()
        return _with_adoptions(conn, [run_json(row, key) for row in rows])


def patch_run(
    engine: Engine, workspace: Workspace, run_id: str, fields: dict[str, Any]
) -> dict[str, Any]:
    """Heartbeat plus optional status/exitCode/error/activeMs/contextDir (terminal is sticky;
    strings arrive redacted)."""
    status = fields.get("status")
    if status is not None and status not in STATUSES:
        raise UsageError(f"status must be one of {', '.join(STATUSES)}")
    stamp = now()
    with transaction(engine) as conn:
        row = _run_row(conn, run_id)
        values: dict[str, Any] = {"heartbeat_at": stamp}
        if row.status not in TERMINAL:
            if status is not None:
                values["status"] = status
                if status in TERMINAL:
                    values["completed_at"] = stamp
            for name, column in (
                ("exitCode", "exit_code"),
                ("error", "error"),
                ("activeMs", "active_ms"),
                ("contextDir", "context_dir"),
            ):
                if fields.get(name) is not None:
                    values[column] = fields[name]
        conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id).values(**values))
    return get_run(engine, workspace, run_id)


def put_usage(engine: Engine, run_id: str, entries: list[UsageEntry]) -> None:
    """Replace the cumulative usage of each (provider, model) given."""
    usage = schema.local_run_usage
    stamp = now()
    with transaction(engine) as conn:
        _run_row(conn, run_id)
        for entry in entries:
            key = (entry.provider, entry.model)
            values = {
                "input_tokens": entry.input_tokens,
                "output_tokens": entry.output_tokens,
                "cache_read_tokens": entry.cache_read_tokens,
                "cache_write_tokens": entry.cache_write_tokens,
                "updated_at": stamp,
            }
            where = (usage.c.run_id == run_id, usage.c.provider == key[0], usage.c.model == key[1])
            if conn.execute(sa.update(usage).where(*where).values(**values)).rowcount == 0:
                conn.execute(
                    sa.insert(usage).values(run_id=run_id, provider=key[0], model=key[1], **values)
                )


def may_become_comment(message: RunMessage) -> bool:
    """Cheap pre-filter for the outbox (the full rules live in :mod:`hangar.hub.workers.outbox`)."""
    if message.type in ("user_input", "final"):
        return True
    return message.type == "text" and message.input.get("kind") == "codex_proposed_plan"


def add_message(
    engine: Engine, run_id: str, message: RunMessage, *, comments: bool = True
) -> tuple[dict[str, Any], bool]:
    """Store ``message`` (validated, redacted and bounded by the caller) once per (run,
    source, sourceKey); returns (stored message, created). ``comments=False``: it never
    becomes a comment, whatever the run's comments mode."""
    return add_messages(engine, run_id, [message], comments=comments)[0]


def add_messages(
    engine: Engine, run_id: str, messages: list[RunMessage], *, comments: bool = True
) -> list[tuple[dict[str, Any], bool]]:
    """Store several messages (each validated, redacted and bounded by the caller) in order,
    in one transaction, each once per (run, source, sourceKey); returns (stored message,
    created) for each. The batch's keys are looked up in one query and its new rows go in
    with one executemany, so a batch costs a few statements, not a few per message."""
    results: list[tuple[dict[str, Any], bool]] = []
    with transaction(engine) as conn:
        mode = _COMMENT_MODES.get(run_id)
        if mode is None:
            mode = _COMMENT_MODES[run_id] = str(_run_row(conn, run_id).comments_mode)
        seq = conn.execute(
            sa.select(sa.func.coalesce(sa.func.max(messages_t.c.seq), 0)).where(
                messages_t.c.run_id == run_id
            )
        ).scalar_one()
        known: dict[tuple[str, str], dict[str, Any]] = {
            key: message_json(row) for key, row in _existing(conn, run_id, messages).items()
        }
        pending: list[dict[str, Any]] = []
        for message in messages:
            key = (message.source, message.source_key)
            if key in known:
                results.append((known[key], False))
                continue
            seq += 1
            values = _row_values(run_id, seq, message)
            checklist = checklist_of(message.input)
            if checklist is not None:
                run_checklists.project(
                    conn, run_id, message, checklist, values["seq"], values["created_at"]
                )
            if comments and mode == "thread" and may_become_comment(message):
                _flush(conn, pending)
                _insert_with_outbox(conn, run_id, values)
            else:
                pending.append(values)
            known[key] = _stored(values, message)
            results.append((known[key], True))
        _flush(conn, pending)
    return results


def _existing(conn: Connection, run_id: str, messages: list[RunMessage]) -> dict[Any, Any]:
    keys = sorted({m.source_key for m in messages})
    found: dict[Any, Any] = {}
    for start in range(0, len(keys), 500):  # stay under SQLite's bound-parameter limit
        rows = conn.execute(
            sa.select(messages_t).where(
                messages_t.c.run_id == run_id,
                messages_t.c.source_key.in_(keys[start : start + 500]),
            )
        ).all()
        found.update({(row.source, row.source_key): row for row in rows})
    return found


def _row_values(run_id: str, seq: int, message: RunMessage) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "seq": seq,
        "type": message.type,
        "tool": message.tool,
        "content": message.content,
        "input": message.input or None,
        "output": message.output,
        "truncated": message.truncated,
        "source": message.source,
        "source_key": message.source_key,
        "created_at": now(),
        "comment_id": None,
    }


def _stored(values: dict[str, Any], message: RunMessage) -> dict[str, Any]:
    stored: dict[str, Any] = {
        "seq": values["seq"],
        "type": message.type,
        "content": message.content,
        "source": message.source,
        "sourceKey": message.source_key,
        "createdAt": iso(values["created_at"]),
        "commentId": None,
    }
    if message.tool is not None:
        stored["tool"] = message.tool
    if message.input:
        stored["input"] = message.input
    if message.output is not None:
        stored["output"] = message.output
    if message.truncated:
        stored["truncated"] = True
    return stored


def _flush(conn: Connection, pending: list[dict[str, Any]]) -> None:
    if pending:
        conn.execute(sa.insert(messages_t), pending)
        pending.clear()


def _insert_with_outbox(conn: Connection, run_id: str, values: dict[str, Any]) -> None:
    inserted = conn.execute(sa.insert(messages_t).values(**values))
    primary_key = inserted.inserted_primary_key
    assert primary_key is not None
    conn.execute(
        sa.insert(schema.local_run_outbox).values(
            message_id=primary_key[0],
            run_id=run_id,
            status="pending",
            next_attempt_at=values["created_at"],
        )
    )


def list_messages(
    engine: Engine, run_id: str, since: int = 0, limit: int = 500
) -> list[dict[str, Any]]:
    page: list[dict[str, Any]] = []
    chars = 0
    with engine.connect() as conn:
        _run_row(conn, run_id)
        rows = conn.execute(
            sa.select(messages_t)
            .where(messages_t.c.run_id == run_id, messages_t.c.seq > since)
            .order_by(messages_t.c.seq)
            .limit(limit)
        )
        for row in rows:  # one row at a time: the budget also bounds what is read
            message = message_json(row)
            chars += _message_chars(message)
            if page and chars > PAGE_CHARS:
                break
            page.append(message)
    return page


@dataclass(frozen=True)
class RunGrant:
    """What a run-scoped token may touch: this run and (read-only) its issue."""

    run_id: str
    issue_key: str
    live: bool
    """False once the run has ended: its token no longer grants anything."""


def grant_for_token(engine: Engine, workspace: Workspace, token: str) -> RunGrant | None:
    """What ``token`` may touch (nothing once its run has ended); ``None`` for an unknown
    token."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(runs_t.c.id, runs_t.c.issue_id, runs_t.c.status).where(
                runs_t.c.token_hash == token_digest(token)
            )
        ).first()
        if row is None:
            return None
        return RunGrant(row.id, _key_of(conn, workspace, row.issue_id), row.status not in TERMINAL)
