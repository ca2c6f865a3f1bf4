"""Adopting a session started outside hangar into an issue, and following it as it grows.

:func:`adopt` links a device's task to an issue (an existing one, or one made from the
session's first request) as a local run with status ``following``, and imports the
execution log so far; :func:`sync` imports what the session gained since. Both ask the task's
device through its executor link (``runtime.tasks.run_messages``): in process today, over
the wire for a remote device, with the same typed request and answer. The executor maps the
agent's own transcript to run messages keyed by the agent's own ids, so adopting or syncing
again imports nothing twice (the hub stores one message per (run, source, sourceKey)).

Comment sync: the messages imported at adoption are the session's history. They go into the
execution log only, and are marked ``input.adoptedHistory`` so that a turn begun before the
adoption never becomes comments either (its reply may arrive later). The rules of local runs
(:mod:`hangar.hub.workers.outbox`) apply to everything the session does after the adoption.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from hangar.errors import NotFoundError, UsageError
from hangar.hub.api.local_runs import run_token
from hangar.hub.context import HubContext
from hangar.hub.run_events import publish_stored
from hangar.hub.store import adoptions
from hangar.hub.store import issues as issues_repo
from hangar.hub.store import local_runs as runs_repo
from hangar.model import LocalTask
from hangar.model.run_messages import InvalidRunMessage, RunMessage, decode_run_message
from hangar.protocol import methods as m
from hangar.protocol.run_log import RunMessagesPage, RunMessagesRequest
from hangar.redaction import redact_text

TITLE_CHARS = 120


@dataclass(frozen=True)
class Adopted:
    run: dict[str, Any]
    issue_key: str
    created: bool
    """A new adoption (``False``: the task was adopted before, into the same issue)."""
    issue_created: bool
    imported: int


def _page(ctx: HubContext, device_id: str, local_task_id: str, start: int) -> RunMessagesPage:
    request = RunMessagesRequest(local_task_id=local_task_id, from_index=start)
    page: RunMessagesPage = ctx.devices.link(device_id).call(m.TASKS_RUN_MESSAGES.name, request)
    return page


def _checked(message: RunMessage) -> RunMessage:
    """A message from a device, validated by the hub's own decoder like a posted one."""
    try:
        return decode_run_message(msgspec.json.encode(message)).prepared()
    except InvalidRunMessage as exc:
        raise UsageError(f"the device sent a run message the hub refuses: {exc}") from None


def _store(ctx: HubContext, run_id: str, messages: list[RunMessage], *, history: bool) -> int:
    stored_count = 0
    for message in messages:
        checked = _checked(message)
        if history:
            checked = msgspec.structs.replace(
                checked, input={**checked.input, "adoptedHistory": True}
            )
        stored, created = runs_repo.add_message(ctx.engine, run_id, checked, comments=not history)
        if created:
            stored_count += 1
            publish_stored(ctx.events, run_id, stored)
    return stored_count


def _import(
    ctx: HubContext, adoption: adoptions.Adoption, first: RunMessagesPage | None, *, history: bool
) -> int:
    """Import pages from the adoption's ``next_index`` on (``first``: a page already read)."""
    page = first or _page(ctx, adoption.device_id, adoption.local_task_id, adoption.next_index)
    imported = 0
    while True:
        imported += _store(ctx, adoption.run_id, page.messages, history=history)
        if not page.has_more:
            break
        page = _page(ctx, adoption.device_id, adoption.local_task_id, page.next_index)
    adoptions.advance(ctx.engine, adoption.run_id, page.next_index)
    return imported


def _title(first_request: str | None, task: LocalTask) -> str:
    line = next((ln.strip() for ln in (first_request or "").splitlines() if ln.strip()), "")
    title = line or task.title or f"{task.runtime} session"
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip() + "…"
    return title


def _new_issue(ctx: HubContext, page: RunMessagesPage) -> dict[str, Any]:
    task = page.task
    request = redact_text(page.first_request or "")
    where = redact_text(task.workspace_path or "a chat")
    description = f"{request}\n\n_Adopted from a `{task.runtime}` session in `{where}`._".strip()
    fields = {"title": redact_text(_title(page.first_request, task)), "description": description}
    return issues_repo.create_issue(ctx.engine, ctx.workspace, fields)


def adopt(
    ctx: HubContext, device_id: str, local_task_id: str, issue_key: str | None = None
) -> Adopted:
    """Adopt the task into ``issue_key`` (or a new issue made of its first request) and
    import its execution log so far (see the module docstring)."""
    existing = adoptions.for_task(ctx.engine, ctx.workspace, device_id, local_task_id)
    if existing is not None:
        if issue_key is not None:
            adoptions.check_issue(ctx.engine, ctx.workspace, existing, issue_key)
        imported = _import(ctx, existing, None, history=False)
        run = runs_repo.get_run(ctx.engine, ctx.workspace, existing.run_id)
        return Adopted(run, str(run["issueKey"]), False, False, imported)
    if issue_key is not None:
        issues_repo.get_issue(ctx.engine, ctx.workspace, issue_key)  # 404 before any read
    page = _page(ctx, device_id, local_task_id, 0)
    task = page.task
    issue = (
        _new_issue(ctx, page)
        if issue_key is None
        else issues_repo.get_issue(ctx.engine, ctx.workspace, issue_key)
    )
    where = redact_text(task.workspace_path or "a chat")
    run, _created = adoptions.create(
        ctx.engine,
        ctx.workspace,
        str(issue["key"]),
        device_id=device_id,
        local_task_id=local_task_id,
        runtime=task.runtime,
        work_dir=task.workspace_path or "",
        top_comment=f"Adopted a `{task.runtime}` session from `{where}`.",
        mint_token=lambda run_id: run_token(ctx, run_id),
    )
    adoption = adoptions.get(ctx.engine, str(run["id"]))
    if adoption is None:
        raise NotFoundError(kind="adoption", key=str(run["id"]))
    imported = _import(ctx, adoption, page, history=True)
    ctx.events.publish("issue.changed", {"key": issue["key"]})
    ctx.events.publish(
        "local_run.changed",
        {"runId": run["id"], "issueKey": issue["key"], "status": run["status"]},
    )
    run = runs_repo.get_run(ctx.engine, ctx.workspace, str(run["id"]))
    return Adopted(run, str(issue["key"]), True, issue_key is None, imported)


def sync(ctx: HubContext, adoption: adoptions.Adoption) -> int:
    """Import what the adopted session gained since the last sync; returns how many new
    messages were stored. The comment-sync rules apply to them."""
    return _import(ctx, adoption, None, history=False)
