"""The web UI's issue pages: list or board with filters, detail, create, edit, comments.

Plain HTML forms (POST + redirect), each carrying the session's CSRF token. Validation errors
re-render the form with the message and the user's input. ``/issues?view=board`` shows the
same filtered issues in one column per status; moving a card (drag, or its status menu) and
the detail page's status and assignee menus change the issue through ``PATCH /api/issues``.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from hangar.errors import HangarError, UsageError
from hangar.hub.context import Hub, hub_of
from hangar.hub.pages.page import page
from hangar.hub.pages.session import check_form_csrf, require_session
from hangar.hub.store import comments as comments_repo
from hangar.hub.store import discussions as discussions_repo
from hangar.hub.store import issues as issues_repo
from hangar.hub.store import local_runs as local_runs_repo
from hangar.hub.store import run_checklists
from hangar.hub.store import workspaces as workspace_repo

router = APIRouter(include_in_schema=False)

FIELDS = ("title", "description", "status", "priority", "projectId", "assigneeId", "parentKey")


def _page(request: Request, session_id: str, name: str, **context: Any) -> HTMLResponse:
    ctx = hub_of(request)
    members = workspace_repo.list_members(ctx.engine, ctx.workspace)
    return page(
        request,
        session_id,
        name,
        statuses=issues_repo.STATUSES,
        priorities=issues_repo.PRIORITIES,
        projects=workspace_repo.list_projects(ctx.engine, ctx.workspace),
        members=members,
        member_names={m["id"]: m["name"] for m in members},
        **context,
    )


def _form_again(
    request: Request,
    session_id: str,
    issue: dict[str, Any] | None,
    form: FormData,
    exc: HangarError,
) -> HTMLResponse:
    """The issue form shown again with the user's input and why it was refused."""
    return _page(
        request,
        session_id,
        "issue_form.html",
        issue=issue,
        form=dict(form),
        error=str(exc),
        status_code=exc.http_status,
    )


def _date(value: str, name: str) -> date | None:
    if not value.strip():
        return None
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(f"{name} must be a date like 2026-12-31") from None


def _fields_from_form(form: FormData) -> dict[str, Any]:
    fields: dict[str, Any] = {name: str(form.get(name, "")) for name in FIELDS}
    for name in ("projectId", "assigneeId", "parentKey"):
        fields[name] = fields[name].strip() or None
    labels = str(form.get("labels", ""))
    fields["labels"] = [part.strip() for part in labels.split(",") if part.strip()]
    fields["startDate"] = _date(str(form.get("startDate", "")), "start date")
    fields["dueDate"] = _date(str(form.get("dueDate", "")), "due date")
    return fields


@router.get("/issues")
def issues_page(request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    params = request.query_params
    board = params.get("view") == "board"
    filters = issues_repo.IssueFilter(
        status=[params["status"]] if params.get("status") and not board else None,
        priority=[params["priority"]] if params.get("priority") else None,
        project_id=params.get("projectId") or None,
        assignee_id=params.get("assigneeId") or None,
        label=params.get("label") or None,
        q=params.get("q") or None,
    )
    error = None
    try:
        found = issues_repo.list_issues(ctx.engine, ctx.workspace, filters)
    except UsageError as exc:
        found, error = [], str(exc)
    plans = run_checklists.issue_checklists(ctx.engine, [i["id"] for i in found])
    return _page(
        request,
        session_id,
        "issues_board.html" if board else "issues_list.html",
        issues=found,
        plans=plans,
        filters=dict(params),
        labels=workspace_repo.list_labels(ctx.engine, ctx.workspace),
        error=error,
    )


@router.get("/issues/new")
def new_issue_page(request: Request) -> HTMLResponse:
    session_id = require_session(request)
    return _page(request, session_id, "issue_form.html", issue=None, form={}, error=None)


@router.post("/issues/new")
async def create_issue_form(request: Request, ctx: Hub) -> Response:
    session_id = require_session(request)
    form = await request.form()
    check_form_csrf(request, session_id, str(form.get("csrf_token", "")))
    try:
        issue = issues_repo.create_issue(ctx.engine, ctx.workspace, _fields_from_form(form))
    except HangarError as exc:
        return _form_again(request, session_id, None, form, exc)
    ctx.events.publish("issue.changed", {"key": issue["key"]})
    return RedirectResponse(f"/issues/{issue['key']}", status_code=303)


@router.get("/issues/{key}")
def issue_page(key: str, request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    issue = issues_repo.get_issue(ctx.engine, ctx.workspace, key)
    comments = comments_repo.list_comments(ctx.engine, ctx.workspace, key)
    return _page(
        request,
        session_id,
        "issue_detail.html",
        issue=issue,
        comments=comments_repo.thread(comments),
        comment_count=len(comments),
        local_runs=local_runs_repo.list_runs(ctx.engine, ctx.workspace, key),
        checklist=run_checklists.issue_checklist(ctx.engine, issue["id"]),
        source_discussion=discussions_repo.for_issue(ctx.engine, ctx.workspace, issue["id"]),
        children=issues_repo.list_issues(
            ctx.engine, ctx.workspace, issues_repo.IssueFilter(parent_key=issue["key"])
        ),
    )


@router.get("/issues/{key}/checklist")
def issue_checklist_partial(key: str, request: Request, ctx: Hub) -> HTMLResponse:
    """The issue's checklist section alone (the page swaps it in when a run updates it)."""
    session_id = require_session(request)
    issue = issues_repo.get_issue(ctx.engine, ctx.workspace, key)
    return page(
        request,
        session_id,
        "_issue_checklist.html",
        issue=issue,
        checklist=run_checklists.issue_checklist(ctx.engine, issue["id"]),
    )


@router.get("/issues/{key}/edit")
def edit_issue_page(key: str, request: Request, ctx: Hub) -> HTMLResponse:
    session_id = require_session(request)
    issue = issues_repo.get_issue(ctx.engine, ctx.workspace, key)
    form = {**issue, "labels": ", ".join(issue["labels"])}
    return _page(request, session_id, "issue_form.html", issue=issue, form=form, error=None)


@router.post("/issues/{key}/edit")
async def edit_issue_form(key: str, request: Request, ctx: Hub) -> Response:
    session_id = require_session(request)
    form = await request.form()
    check_form_csrf(request, session_id, str(form.get("csrf_token", "")))
    issue = issues_repo.get_issue(ctx.engine, ctx.workspace, key)
    try:
        issue = issues_repo.update_issue(ctx.engine, ctx.workspace, key, _fields_from_form(form))
    except HangarError as exc:
        return _form_again(request, session_id, issue, form, exc)
    ctx.events.publish("issue.changed", {"key": issue["key"]})
    return RedirectResponse(f"/issues/{issue['key']}", status_code=303)


@router.post("/issues/{key}/comments")
async def comment_form(key: str, request: Request, ctx: Hub) -> Response:
    session_id = require_session(request)
    form = await request.form()
    check_form_csrf(request, session_id, str(form.get("csrf_token", "")))
    parent_id = str(form.get("parentId", "")).strip() or None
    issue = issues_repo.get_issue(ctx.engine, ctx.workspace, key)
    comment = comments_repo.add_comment(
        ctx.engine, ctx.workspace, issue["key"], str(form.get("body", "")), parent_id=parent_id
    )
    ctx.events.publish("issue.changed", {"key": issue["key"]})
    return RedirectResponse(f"/issues/{issue['key']}#comment-{comment['id']}", status_code=303)
