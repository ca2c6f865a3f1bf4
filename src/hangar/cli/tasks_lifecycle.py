"""``hangar tasks rename|archive|unarchive|delete|restore|purge``.

Lazy entries of ``hangar tasks`` (:data:`hangar.cli.tasks.LIFECYCLE_COMMANDS`).

Each command calls the executor RPC of the same name on this device. ``delete`` writes the
tombstone, then runs the delete worker in the foreground (with ``--no-wait`` it leaves the
queue to a running ``hangar serve``); deleted sessions sit in ``$HANGAR_HOME/trash/`` until
``restore`` or ``purge`` (or ``purge --expired`` after ``trash_retention_days``).
"""

from __future__ import annotations

import json
from typing import Any

import click

from hangar.cli.local_executor import open_executor
from hangar.errors import AmbiguousError, NotFoundError
from hangar.executor.delete_worker import purge_expired_tasks, request_delete
from hangar.executor.service import Executor


def _finish_queued(executor: Executor, as_json: bool) -> None:
    """Finish deletes an earlier process queued and did not get to (killed, or ``--no-wait``
    with no hub running): a purge or a new delete must not wait on them forever."""
    worker = executor.deleter
    if not worker.pending():
        return

    def report(state: dict[str, Any]) -> None:
        if not as_json:
            click.echo(f"  deleting… {state['done']}/{state['total']}", err=True)

    worker.drain(report)


def _print(data: dict[str, Any], as_json: bool, line: str) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False) if as_json else line)


def _deleted_task(executor: Executor, key: str) -> str:
    """A deleted task's id from its id or a unique prefix (tombstoned rows and trash)."""
    rows: list[str] = [
        str(r[0])
        for r in executor.db.read().execute(
            "SELECT local_task_id FROM local_tasks WHERE deleted_at IS NOT NULL"
            " AND (local_task_id = ? OR local_task_id LIKE ? OR session_key = ?)",
            (key, key.replace("%", "").replace("_", "") + "%", key),
        )
    ]
    trash = executor.trash_root
    if trash.is_dir():  # entries are folders with a manifest (not the worker's lock file)
        rows += [
            p.name
            for p in trash.iterdir()
            if p.name.startswith(key) and p.name not in rows and (p / "manifest.json").is_file()
        ]
    if key in rows:
        return key
    if len(rows) == 1:
        return rows[0]
    if rows:
        raise AmbiguousError(kind="deleted task", key=key, candidates=tuple(rows))
    raise NotFoundError(kind="deleted task", key=key)


@click.command("rename")
@click.argument("task")
@click.argument("title")
@click.option("--json", "as_json", is_flag=True)
def rename_command(task: str, title: str, as_json: bool) -> None:
    """Give TASK a new TITLE (Codex through Codex itself)."""
    with open_executor() as executor:
        payload = {"localTaskId": executor.resolve_task(task), "title": title}
        data = executor.handle("runtime.tasks.rename", payload)
    _print(data, as_json, f"renamed {data['localTaskId'][:10]} → {data['title']}")


def _archive(task: str, as_json: bool, method: str) -> None:
    with open_executor() as executor:
        data = executor.handle(method, {"localTaskId": executor.resolve_task(task)})
    if data.get("cleanupReason"):
        line = f"{task}: Codex has no rollout for this thread any more; removed its leftover entry"
    else:
        line = f"{'archived' if data['archived'] else 'unarchived'} {data['localTaskId'][:10]}"
    _print(data, as_json, line)


@click.command("archive")
@click.argument("task")
@click.option("--json", "as_json", is_flag=True)
def archive_command(task: str, as_json: bool) -> None:
    """Archive TASK (it leaves the list; `tasks list --all` still shows it)."""
    _archive(task, as_json, "runtime.tasks.archive")


@click.command("unarchive")
@click.argument("task")
@click.option("--json", "as_json", is_flag=True)
def unarchive_command(task: str, as_json: bool) -> None:
    """Bring an archived TASK back to the list."""
    _archive(task, as_json, "runtime.tasks.unarchive")


@click.command("delete")
@click.argument("tasks", nargs=-1, required=True)
@click.option("--no-wait", is_flag=True, help="Only hide them; a running hub finishes the job.")
@click.option("--json", "as_json", is_flag=True)
def delete_command(tasks: tuple[str, ...], no_wait: bool, as_json: bool) -> None:
    """Delete TASKS: hidden at once, files moved to the trash (restorable until purged)."""
    with open_executor() as executor:
        ids = [executor.resolve_task(t) for t in tasks]
        data = request_delete(executor.db, ids)  # phase one; phase two right here, below
        if not no_wait:
            _finish_queued(executor, as_json)  # this batch and any an earlier run left
            data["progress"] = executor.handle(
                "runtime.tasks.delete_progress", {"batchId": data["batchId"]}
            )
    _print(data, as_json, f"deleted {len(ids)} task(s); `hangar tasks restore ID` undoes it")


@click.command("restore")
@click.argument("task")
@click.option("--json", "as_json", is_flag=True)
def restore_command(task: str, as_json: bool) -> None:
    """Undo the delete of TASK: its files come back byte for byte."""
    with open_executor() as executor:
        data = executor.handle(
            "runtime.tasks.restore", {"localTaskId": _deleted_task(executor, task)}
        )
    what = (
        f"the files cleanup removed beside {data['localTaskId'][:10]}"
        if data.get("trashId")
        else data["localTaskId"][:10]
    )
    _print(data, as_json, f"restored {what} ({len(data['files'])} file(s))")


@click.command("purge")
@click.argument("task", required=False)
@click.option("--expired", is_flag=True, help="Purge every deletion older than the retention.")
@click.option("--json", "as_json", is_flag=True)
def purge_command(task: str | None, expired: bool, as_json: bool) -> None:
    """Remove a deleted TASK from the trash for good (or all expired ones)."""
    if bool(task) == expired:
        raise click.UsageError("give a TASK or --expired (not both)")
    with open_executor() as executor:
        if expired:
            days = int(executor.settings.trash_retention_days)
            purged = purge_expired_tasks(executor.db, executor.trash_root, days)
            data: dict[str, Any] = {"purged": purged}
            line = f"purged {len(purged)} deletion(s) older than {days} day(s)"
        else:
            assert task is not None
            _finish_queued(executor, as_json)
            data = executor.handle(
                "runtime.tasks.purge", {"localTaskId": _deleted_task(executor, task)}
            )
            line = f"purged {data['localTaskId'][:10]}"
    _print(data, as_json, line)
