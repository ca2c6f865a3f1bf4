"""``/api/issues/{key}/local-runs`` and ``/api/local-runs/…``: local runs bound to issues.

Shapes (camelCase JSON):

- ``POST /api/issues/{key}/local-runs`` ``{cliName, workDir?, contextDir?, commentsMode?:
  thread|off, noStatusUpdate?, source?, sourceKey?}`` → 201 (new) or 200 (same source+sourceKey)
  with the run plus ``runToken``: a token that can only read this issue and post to this run.
- ``GET /api/issues/{key}/local-runs`` → ``{runs: [run]}`` (newest first).
- ``GET /api/local-runs/{runId}`` → run with ``usage`` and ``messageCount``.
- ``PATCH /api/local-runs/{runId}`` ``{status?, exitCode?, error?, activeMs?, contextDir?}`` →
  run; every call is a heartbeat; terminal statuses are sticky.
- ``PUT /api/local-runs/{runId}/usage`` ``{usage: [{provider, model, inputTokens, outputTokens,
  cacheReadTokens, cacheWriteTokens}]}`` (cumulative) → run.
- ``POST /api/local-runs/{runId}/messages`` ``{type, source, sourceKey, content?, tool?, input?,
  output?}`` → 201 with the stored message (``seq``…) or 200 with the one stored before.
- ``POST /api/local-runs/{runId}/messages/batch`` ``{messages: [message, …≤500]}`` → 200
  ``{results: [{seq, created}]}``: the same, in order, in one transaction.
- ``GET /api/local-runs/{runId}/messages?since=SEQ&limit=N`` → ``{messages, nextSince}``.

Events: ``local_run.changed {runId, issueKey, status}``, ``local_run.message {runId, seq}``.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse

from hangar.errors import UsageError
from hangar.hub.context import Hub, HubContext
from hangar.hub.store import local_runs as repo
from hangar.localrun.messages import RunMessage

router = APIRouter(prefix="/api", tags=["local runs"])
MAX_BATCH = 500


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunCreate(_Body):
    cliName: str = Field(min_length=1, max_length=100)
    workDir: str = Field(default="", max_length=4096)
    contextDir: str | None = Field(default=None, max_length=4096)
    commentsMode: str = "thread"
    noStatusUpdate: bool = False
    source: str = Field(default="hangar-cli", max_length=100)
    sourceKey: str | None = Field(default=None, max_length=300)


class RunPatch(_Body):
    status: str | None = None
    exitCode: int | None = None
    error: str | None = Field(default=None, max_length=20_000)
    activeMs: int | None = Field(default=None, ge=0)
    contextDir: str | None = Field(default=None, max_length=4096)


class UsageItem(_Body):
    provider: str = Field(min_length=1, max_length=100)
    model: str = Field(default="", max_length=200)
    inputTokens: int = Field(default=0, ge=0)
    outputTokens: int = Field(default=0, ge=0)
    cacheReadTokens: int = Field(default=0, ge=0)
    cacheWriteTokens: int = Field(default=0, ge=0)


class UsagePut(_Body):
    usage: list[UsageItem] = Field(max_length=100)


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str
    source: str = Field(default="local-run", min_length=1, max_length=100)
    sourceKey: str = Field(min_length=1, max_length=500)
    content: str = Field(default="", max_length=1_000_000)
    tool: str | None = Field(default=None, max_length=200)
    input: dict[str, Any] | None = None
    output: str | None = Field(default=None, max_length=1_000_000)


@router.post("/issues/{key}/local-runs", status_code=201, summary="Start a local run")
def create_run(key: str, body: RunCreate, ctx: Hub) -> JSONResponse:
    run, created, token = repo.create_run(ctx.engine, ctx.workspace, key, body.model_dump())
    if created:
        ctx.events.publish("issue.changed", {"key": run["issueKey"]})
        ctx.events.publish(
            "local_run.changed",
            {"runId": run["id"], "issueKey": run["issueKey"], "status": run["status"]},
        )
    return JSONResponse({**run, "runToken": token}, status_code=201 if created else 200)


@router.get("/issues/{key}/local-runs", summary="Runs of an issue, newest first")
def list_runs(key: str, ctx: Hub) -> dict[str, Any]:
    return {"runs": repo.list_runs(ctx.engine, ctx.workspace, key)}


@router.get("/local-runs/{run_id}", summary="One run with usage and message count")
def get_run(run_id: str, ctx: Hub) -> dict[str, Any]:
    return repo.get_run(ctx.engine, ctx.workspace, run_id)


@router.patch("/local-runs/{run_id}", summary="Heartbeat and status (terminal is sticky)")
def patch_run(run_id: str, body: RunPatch, ctx: Hub) -> dict[str, Any]:
    fields = body.model_dump(exclude_unset=True)
    run = repo.patch_run(ctx.engine, ctx.workspace, run_id, fields)
    if "status" in fields:
        ctx.events.publish(
            "local_run.changed",
            {"runId": run_id, "issueKey": run["issueKey"], "status": run["status"]},
        )
    return run


@router.put("/local-runs/{run_id}/usage", summary="Cumulative token usage per provider+model")
def put_usage(run_id: str, body: UsagePut, ctx: Hub) -> dict[str, Any]:
    repo.put_usage(ctx.engine, run_id, [item.model_dump() for item in body.usage])
    return repo.get_run(ctx.engine, ctx.workspace, run_id)


@router.post("/local-runs/{run_id}/messages", status_code=201, summary="Add a run message")
def add_message(run_id: str, body: MessageIn, ctx: Hub) -> JSONResponse:
    data = body.model_dump()
    data["input"] = data.get("input") or {}
    try:
        message = RunMessage.from_json(data)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    stored, created = repo.add_message(ctx.engine, run_id, message)
    if created:
        ctx.events.publish("local_run.message", {"runId": run_id, "seq": stored["seq"]})
    return JSONResponse(stored, status_code=201 if created else 200)


class MessageBatch(_Body):
    messages: list[MessageIn] = Field(min_length=1, max_length=MAX_BATCH)


@router.post("/local-runs/{run_id}/messages/batch", summary="Add run messages in order")
def add_message_batch(run_id: str, body: MessageBatch, ctx: Hub) -> dict[str, Any]:
    parsed = []
    for index, item in enumerate(body.messages):
        data = item.model_dump()
        data["input"] = data.get("input") or {}
        try:
            parsed.append(RunMessage.from_json(data))
        except ValueError as exc:
            raise UsageError(f"messages[{index}]: {exc}") from None
    stored = repo.add_messages(ctx.engine, run_id, parsed)
    for message, created in stored:
        if created:
            ctx.events.publish("local_run.message", {"runId": run_id, "seq": message["seq"]})
    return {"results": [{"seq": message["seq"], "created": created} for message, created in stored]}


@router.get("/local-runs/{run_id}/messages", summary="Run messages after seq `since`")
def list_messages(
    run_id: str,
    ctx: Hub,
    since: int = Query(0, ge=0),
    limit: int = Query(500, ge=1, le=5000),
) -> dict[str, Any]:
    messages = repo.list_messages(ctx.engine, run_id, since, limit)
    return {"messages": messages, "nextSince": messages[-1]["seq"] if messages else since}


_ISSUE_READ = re.compile(r"^/api/issues/([^/]+)(?:/comments)?$")
_RUN_PATH = re.compile(r"^/api/local-runs/([^/]+)(/messages)?$")


class RunTokenPolicy:
    """Decides what a run-scoped token may do: read its issue (and its comments), read its
    run, read and post its run's messages. Nothing else."""

    def __init__(self, ctx: HubContext) -> None:
        self.ctx = ctx

    def allows(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip().startswith(repo.TOKEN_PREFIX):
            return False
        grant = repo.grant_for_token(self.ctx.engine, self.ctx.workspace, token.strip())
        if grant is None:
            return False
        path, method = request.url.path, request.method
        issue = _ISSUE_READ.match(path)
        if issue and method == "GET":
            return issue.group(1).upper() == grant.issue_key.upper()
        run = _RUN_PATH.match(path)
        if run and run.group(1) == grant.run_id:
            return method == "GET" or (method == "POST" and run.group(2) is not None)
        return False
