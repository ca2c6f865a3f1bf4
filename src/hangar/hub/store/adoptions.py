"""Sessions adopted into issues: the link from a local run to a device's task.

Contracts:

- One adoption per (workspace, device, task). :func:`create` makes the run (``source``
  ``adopted``, ``sourceKey`` ``<deviceId>:<localTaskId>``, status
  :data:`~hangar.hub.store.local_runs.FOLLOWING`) and its adoption row; adopting the same task
  again finds them (:func:`for_task`), into another issue is a
  :class:`~hangar.hub.store.local_runs.RunConflictError` (409).
- ``next_index`` is where the next read of the task's transcript starts
  (``runtime.tasks.run_messages``); :func:`advance` records it after each sync, with the
  last error (or none).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hangar.hub.store import local_runs, schema
from hangar.hub.store.local_runs import FOLLOWING, RunConflictError, now
from hangar.hub.store.workspaces import Workspace
from hangar.hub.store.writes import transaction

SOURCE = "adopted"
adoptions_t = schema.local_run_adoptions
runs_t = schema.local_runs


@dataclass(frozen=True)
class Adoption:
    run_id: str
    issue_id: str
    device_id: str
    local_task_id: str
    runtime: str
    next_index: int
    status: str


def _select() -> sa.Select[Any]:
    return sa.select(
        adoptions_t.c.run_id,
        runs_t.c.issue_id,
        adoptions_t.c.device_id,
        adoptions_t.c.local_task_id,
        adoptions_t.c.runtime,
        adoptions_t.c.next_index,
        runs_t.c.status,
    ).join(runs_t, runs_t.c.id == adoptions_t.c.run_id)


def _adoption(row: Any) -> Adoption:
    return Adoption(*row)


def for_task(
    engine: Engine, workspace: Workspace, device_id: str, local_task_id: str
) -> Adoption | None:
    with engine.connect() as conn:
        row = conn.execute(
            _select().where(
                adoptions_t.c.workspace_id == workspace.id,
                adoptions_t.c.device_id == device_id,
                adoptions_t.c.local_task_id == local_task_id,
            )
        ).first()
    return None if row is None else _adoption(row)


def get(engine: Engine, run_id: str) -> Adoption | None:
    with engine.connect() as conn:
        row = conn.execute(_select().where(adoptions_t.c.run_id == run_id)).first()
    return None if row is None else _adoption(row)


def following(engine: Engine, workspace: Workspace, device_ids: set[str] | None) -> list[Adoption]:
    """The adoptions still followed (run status ``following``), on ``device_ids`` (all when
    ``None``), oldest first."""
    query = _select().where(
        adoptions_t.c.workspace_id == workspace.id, runs_t.c.status == FOLLOWING
    )
    if device_ids is not None:
        query = query.where(adoptions_t.c.device_id.in_(sorted(device_ids)))
    with engine.connect() as conn:
        return [_adoption(row) for row in conn.execute(query.order_by(adoptions_t.c.adopted_at))]


def create(
    engine: Engine,
    workspace: Workspace,
    issue_key: str,
    *,
    device_id: str,
    local_task_id: str,
    runtime: str,
    work_dir: str,
    top_comment: str,
    mint_token: Callable[[str], str],
) -> tuple[dict[str, Any], bool]:
    """The run of an adopted task (new, or the one adopted before); returns (run, new).
    ``mint_token`` derives the run's token (see :func:`local_runs.create_run`); nobody reports
    to a followed run, but every run has one."""
    existing = for_task(engine, workspace, device_id, local_task_id)
    fields = {
        "cliName": runtime,
        "workDir": work_dir,
        "commentsMode": "thread",
        "noStatusUpdate": True,  # adopting records work; it does not start any
        "source": SOURCE,
        "sourceKey": f"{device_id}:{local_task_id}",
    }
    run, created, _token = local_runs.create_run(
        engine,
        workspace,
        issue_key,
        fields,
        mint_token,
        status=FOLLOWING,
        top_comment=top_comment,
    )
    if existing is None:  # also after a crash between the run and its adoption row
        with transaction(engine) as conn:
            conn.execute(
                sa.insert(adoptions_t).values(
                    run_id=run["id"],
                    workspace_id=workspace.id,
                    device_id=device_id,
                    local_task_id=local_task_id,
                    runtime=runtime,
                    next_index=0,
                    adopted_at=now(),
                )
            )
    return local_runs.get_run(engine, workspace, run["id"]), created


def check_issue(engine: Engine, workspace: Workspace, adoption: Adoption, issue_key: str) -> None:
    """Refuse adopting a task already adopted into another issue."""
    with engine.connect() as conn:
        key = local_runs.issue_key_of(conn, workspace, adoption.issue_id)
    if key.upper() != issue_key.upper():
        raise RunConflictError(f"this session is already adopted into {key}")


def advance(engine: Engine, run_id: str, next_index: int, error: str | None = None) -> None:
    """Record where the next sync starts and how the last one went."""
    with transaction(engine) as conn:
        conn.execute(
            sa.update(adoptions_t)
            .where(adoptions_t.c.run_id == run_id)
            .values(next_index=next_index, synced_at=now(), last_error=error)
        )


def record_error(engine: Engine, run_id: str, error: str) -> None:
    with transaction(engine) as conn:
        conn.execute(
            sa.update(adoptions_t).where(adoptions_t.c.run_id == run_id).values(last_error=error)
        )
