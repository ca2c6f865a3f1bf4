"""``/api/discussions…``: discussions before an issue (``hangar discuss -- CLI …``).

Shapes (camelCase JSON; bodies decoded once, strictly, 422 ``invalid_request`` naming the
field):

- ``POST /api/discussions`` ``{cliName, provider, clientId, workDir?, providerSessionId?}`` →
  201 a new discussion, or 200 the unfinished one of that provider session (resumed); 409
  ``discussion_in_use`` when another terminal holds it.
- ``GET /api/discussions?status=open|issue_created&provider=…`` → ``{discussions}``.
- ``GET /api/discussions/{id}`` → the discussion with its ``turns`` and latest ``plan``.
- ``PATCH /api/discussions/{id}`` ``{clientId, providerSessionId?, release?}`` → heartbeat
  of the holder (keeps its lease; ``release`` gives it back).
- ``POST /api/discussions/{id}/turns`` ``{role: user|assistant|plan, content, source,
  sourceKey}`` → 201 stored / 200 stored before (same source + sourceKey).
- ``POST /api/discussions/{id}/issue`` ``{planDigest, planSourceKey?, title, status?,
  priority?, projectId?, assigneeId?, labels?, parentKey?, startDate?, dueDate?, mode?}`` →
  201 the issue made from the saved plan (its description is the plan) / 200 the issue made
  before; 409 ``plan_changed`` when ``planDigest`` is not the saved plan's.
- ``POST /api/discussions/{id}/link`` ``{issueKey, runId?}`` → the discussion.

Events: ``discussion.changed {id, status}``; creating the issue also ``issue.changed``.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

import msgspec
from fastapi import APIRouter, Query
from starlette.responses import JSONResponse

from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.context import Hub, HubContext
from hangar.hub.store import discussions as repo
from hangar.protocol.codec import Wire
from hangar.redaction import redact_text

router = APIRouter(prefix="/api/discussions", tags=["discussions"])

DISCUSSION_CHANGED = "discussion.changed"

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
ClientId = Annotated[str, msgspec.Meta(min_length=8, max_length=100)]
SessionId = Annotated[str, msgspec.Meta(min_length=1, max_length=300)]
Key = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
Text = Annotated[str, msgspec.Meta(min_length=1, max_length=1_000_000)]
Path = Annotated[str, msgspec.Meta(max_length=4096)]
Digest = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
Title = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
Ref = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Label = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class DiscussionOpen(Wire):
    cli_name: Name
    provider: Name
    client_id: ClientId
    work_dir: Path = ""
    provider_session_id: SessionId | None = None


class DiscussionPatch(Wire):
    client_id: ClientId
    provider_session_id: SessionId | None = None
    release: bool = False


class TurnIn(Wire):
    role: Literal["user", "assistant", "plan"]
    content: Text
    source: Name
    source_key: Key


class IssueFromPlan(Wire):
    plan_digest: Digest
    title: Title
    plan_source_key: Key | None = None
    status: Literal["backlog", "todo", "in_progress", "in_review", "done", "cancelled"] | None = (
        None
    )
    priority: Literal["none", "urgent", "high", "medium", "low"] | None = None
    project_id: Ref | None = None
    assignee_id: Ref | None = None
    labels: Annotated[list[Label], msgspec.Meta(max_length=50)] | None = None
    parent_key: Annotated[str, msgspec.Meta(min_length=1, max_length=30)] | None = None
    start_date: date | None = None
    due_date: date | None = None
    mode: Literal["continue_in_cli", "agent", "create_only"] | None = None


class LinkIn(Wire):
    issue_key: Annotated[str, msgspec.Meta(min_length=1, max_length=30)]
    run_id: Ref | None = None


DiscussionOpenBody = Annotated[DiscussionOpen, json_body(DiscussionOpen)]
DiscussionPatchBody = Annotated[DiscussionPatch, json_body(DiscussionPatch)]
TurnInBody = Annotated[TurnIn, json_body(TurnIn)]
IssueFromPlanBody = Annotated[IssueFromPlan, json_body(IssueFromPlan)]
LinkInBody = Annotated[LinkIn, json_body(LinkIn)]


def _changed(ctx: HubContext, discussion: dict[str, Any]) -> None:
    ctx.events.publish(DISCUSSION_CHANGED, {"id": discussion["id"], "status": discussion["status"]})


@router.post(
    "",
    status_code=201,
    summary="Start a discussion, or resume the open one of this provider session",
    openapi_extra=body_schema(DiscussionOpen),
)
def open_discussion(body: DiscussionOpenBody, ctx: Hub) -> JSONResponse:
    fields = {
        "cliName": body.cli_name,
        "provider": body.provider,
        "clientId": body.client_id,
        "workDir": redact_text(body.work_dir),
        "providerSessionId": body.provider_session_id,
    }
    discussion, created = repo.open_discussion(ctx.engine, ctx.workspace, fields)
    _changed(ctx, discussion)
    return JSONResponse({**discussion, "resumed": not created}, status_code=201 if created else 200)


@router.get("", summary="Discussions, newest activity first")
def list_discussions(
    ctx: Hub,
    status: str | None = Query(None, description="open or issue_created"),
    provider: str | None = Query(None, max_length=100),
    limit: int = Query(200, ge=1, le=1000),
) -> dict[str, Any]:
    found = repo.list_discussions(
        ctx.engine, ctx.workspace, status=status or None, provider=provider, limit=limit
    )
    return {"discussions": found}


@router.get("/{discussion_id}", summary="One discussion with its saved questions, answers, plan")
def get_discussion(discussion_id: str, ctx: Hub) -> dict[str, Any]:
    return repo.get_discussion(ctx.engine, ctx.workspace, discussion_id)


@router.patch(
    "/{discussion_id}",
    summary="Heartbeat of the terminal holding the discussion",
    openapi_extra=body_schema(DiscussionPatch),
)
def patch_discussion(discussion_id: str, body: DiscussionPatchBody, ctx: Hub) -> dict[str, Any]:
    discussion = repo.renew(
        ctx.engine,
        ctx.workspace,
        discussion_id,
        body.client_id,
        provider_session_id=body.provider_session_id,
        release=body.release,
    )
    if body.release or body.provider_session_id:
        _changed(ctx, discussion)
    return discussion


@router.post(
    "/{discussion_id}/turns",
    status_code=201,
    summary="Save a question, an answer or a plan (once per source + sourceKey)",
    openapi_extra=body_schema(TurnIn),
)
def add_turn(discussion_id: str, body: TurnInBody, ctx: Hub) -> JSONResponse:
    turn, created = repo.add_turn(
        ctx.engine,
        ctx.workspace,
        discussion_id,
        {
            "role": body.role,
            "content": redact_text(body.content),  # redacted here, never under the lock
            "source": body.source,
            "sourceKey": body.source_key,
        },
    )
    if created:
        ctx.events.publish(DISCUSSION_CHANGED, {"id": discussion_id, "seq": turn["seq"]})
    return JSONResponse(turn, status_code=201 if created else 200)


@router.post(
    "/{discussion_id}/issue",
    status_code=201,
    summary="Create the issue from the saved plan; the discussion becomes its source",
    openapi_extra=body_schema(IssueFromPlan),
)
def create_issue(discussion_id: str, body: IssueFromPlanBody, ctx: Hub) -> JSONResponse:
    fields: dict[str, Any] = {
        "planDigest": body.plan_digest,
        "planSourceKey": body.plan_source_key,
        "title": body.title,
        "mode": body.mode,
    }
    optional = {
        "status": body.status,
        "priority": body.priority,
        "projectId": body.project_id,
        "assigneeId": body.assignee_id,
        "labels": body.labels,
        "parentKey": body.parent_key,
        "startDate": body.start_date,
        "dueDate": body.due_date,
    }
    fields.update({k: v for k, v in optional.items() if v is not None})
    issue, created = repo.create_issue(ctx.engine, ctx.workspace, discussion_id, fields)
    if created:
        ctx.events.publish("issue.changed", {"key": issue["key"]})
        ctx.events.publish(DISCUSSION_CHANGED, {"id": discussion_id, "status": "issue_created"})
    return JSONResponse(issue, status_code=201 if created else 200)


@router.post(
    "/{discussion_id}/link",
    summary="Link the discussion to an issue (its source) and the run that goes on with it",
    openapi_extra=body_schema(LinkIn),
)
def link(discussion_id: str, body: LinkInBody, ctx: Hub) -> dict[str, Any]:
    discussion = repo.link(
        ctx.engine, ctx.workspace, discussion_id, issue_key=body.issue_key, run_id=body.run_id
    )
    _changed(ctx, discussion)
    ctx.events.publish("issue.changed", {"key": body.issue_key.upper()})
    return discussion
