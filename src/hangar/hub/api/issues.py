"""``/api/issues``, ``/api/projects``, ``/api/labels``, ``/api/members``: the issue tracker."""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from hangar.hub.api.limits import PathId
from hangar.hub.context import Hub
from hangar.hub.store import comments as comments_repo
from hangar.hub.store import issues as issues_repo
from hangar.hub.store import workspaces as workspace_repo

router = APIRouter(prefix="/api", tags=["issues"])

ISSUE_CHANGED = "issue.changed"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class IssueCreate(_Body):
    title: str = Field(min_length=1, max_length=500)
    description: str | None = Field(default=None, max_length=200_000)
    status: str | None = None
    priority: str | None = None
    projectId: str | None = None
    labels: list[str] | None = Field(default=None, max_length=50)
    assigneeId: str | None = None
    parentKey: str | None = None
    startDate: date | None = None
    dueDate: date | None = None


class IssuePatch(_Body):
    title: str | None = Field(default=None, min_length=1, max_length=500)
    description: str | None = Field(default=None, max_length=200_000)
    status: str | None = None
    priority: str | None = None
    projectId: str | None = None
    labels: list[str] | None = Field(default=None, max_length=50)
    assigneeId: str | None = None
    parentKey: str | None = None
    startDate: date | None = None
    dueDate: date | None = None


class CommentCreate(_Body):
    body: str = Field(min_length=1, max_length=comments_repo.MAX_BODY)
    parentId: str | None = None


class ProjectCreate(_Body):
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=20_000)


class LabelCreate(_Body):
    name: str = Field(min_length=1, max_length=100)
    color: str = Field(default="#888888", pattern=r"^#[0-9a-fA-F]{6}$")


def _csv(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


@router.get("/issues", summary="List issues (filters combine with AND)")
def list_issues(
    ctx: Hub,
    status: str | None = Query(None, description="comma-separated statuses"),
    priority: str | None = Query(None, description="comma-separated priorities"),
    projectId: str | None = None,
    assigneeId: str | None = None,
    label: str | None = None,
    q: str | None = Query(None, max_length=200),
) -> dict[str, Any]:
    filters = issues_repo.IssueFilter(
        status=_csv(status),
        priority=_csv(priority),
        project_id=projectId,
        assignee_id=assigneeId,
        label=label,
        q=q,
    )
    return {"issues": issues_repo.list_issues(ctx.engine, ctx.workspace, filters)}


@router.post("/issues", status_code=201, summary="Create an issue; returns it with its key")
def create_issue(body: IssueCreate, ctx: Hub) -> dict[str, Any]:
    issue = issues_repo.create_issue(ctx.engine, ctx.workspace, body.model_dump())
    ctx.events.publish(ISSUE_CHANGED, {"key": issue["key"]})
    return issue


@router.get("/issues/{key}", summary="One issue")
def get_issue(key: PathId, ctx: Hub) -> dict[str, Any]:
    return issues_repo.get_issue(ctx.engine, ctx.workspace, key)


@router.patch("/issues/{key}", summary="Change some fields of an issue")
def patch_issue(key: PathId, body: IssuePatch, ctx: Hub) -> dict[str, Any]:
    issue = issues_repo.update_issue(
        ctx.engine, ctx.workspace, key, body.model_dump(exclude_unset=True)
    )
    ctx.events.publish(ISSUE_CHANGED, {"key": issue["key"]})
    return issue


@router.get("/issues/{key}/comments", summary="Comments of an issue, flat, oldest first")
def list_comments(key: PathId, ctx: Hub) -> dict[str, Any]:
    return {"comments": comments_repo.list_comments(ctx.engine, ctx.workspace, key)}


@router.post("/issues/{key}/comments", status_code=201, summary="Comment (or reply to one)")
def add_comment(key: PathId, body: CommentCreate, ctx: Hub) -> dict[str, Any]:
    comment = comments_repo.add_comment(
        ctx.engine, ctx.workspace, key, body.body, parent_id=body.parentId
    )
    ctx.events.publish(ISSUE_CHANGED, {"key": key.upper()})
    return comment


@router.get("/projects", summary="Issue-tracker projects")
def list_projects(ctx: Hub) -> dict[str, Any]:
    return {"projects": workspace_repo.list_projects(ctx.engine, ctx.workspace)}


@router.post("/projects", status_code=201, summary="Create a project")
def create_project(body: ProjectCreate, ctx: Hub) -> dict[str, Any]:
    return workspace_repo.create_project(ctx.engine, ctx.workspace, body.name, body.description)


@router.get("/labels", summary="Labels")
def list_labels(ctx: Hub) -> dict[str, Any]:
    return {"labels": workspace_repo.list_labels(ctx.engine, ctx.workspace)}


@router.post("/labels", status_code=201, summary="Create a label")
def create_label(body: LabelCreate, ctx: Hub) -> dict[str, Any]:
    return workspace_repo.create_label(ctx.engine, ctx.workspace, body.name, body.color)


@router.get("/members", summary="Workspace members")
def list_members(ctx: Hub) -> dict[str, Any]:
    return {"members": workspace_repo.list_members(ctx.engine, ctx.workspace)}


@router.get("/workspace", summary="The workspace (name, key prefix)")
def workspace(ctx: Hub) -> dict[str, Any]:
    ws = ctx.workspace
    return {"id": ws.id, "name": ws.name, "keyPrefix": ws.key_prefix, "ownerId": ws.owner_id}
