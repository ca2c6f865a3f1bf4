"""``/api/issues/{key}/local-runs`` and ``/api/local-runs/…``: local runs bound to issues.

Shapes (camelCase JSON):

- ``POST /api/issues/{key}/local-runs`` ``{cliName, workDir?, contextDir?, commentsMode?:
  thread|off, noStatusUpdate?, source?, sourceKey?}`` → 201 (new) or 200 (same source+sourceKey)
  with the run plus ``runToken``: a token that can only read this issue and post to this run,
  while the run is running. A retried create (same source+sourceKey) returns the same token.
- ``GET /api/issues/{key}/local-runs`` → ``{runs: [run]}`` (newest first).
- ``GET /api/local-runs/{runId}`` → run with ``usage`` and ``messageCount``.
- ``PATCH /api/local-runs/{runId}`` ``{status?, exitCode?, error?, activeMs?, contextDir?}`` →
  run; every call is a heartbeat; terminal statuses are sticky.
- ``PUT /api/local-runs/{runId}/usage`` ``{usage: [{provider, model, inputTokens, outputTokens,
  cacheReadTokens, cacheWriteTokens}]}`` (cumulative) → run.
- ``POST /api/local-runs/{runId}/messages`` ``{type, source, sourceKey, content?, tool?, input?,
  output?}`` → 201 with the stored message (``seq``…, ``truncated`` when a field was cut) or
  200 with the one stored before.
- ``POST /api/local-runs/{runId}/messages/batch`` ``{messages: [message, …≤500]}`` → 200
  ``{results: [{seq, created}]}``: the same for each, in order, in one transaction; one
  invalid message refuses the batch (422 naming ``messages[i].field``).
- ``GET /api/local-runs/{runId}/messages?since=SEQ&limit=N`` → ``{messages, nextSince}``.

Run messages and usage are decoded once here (:mod:`hangar.model.run_messages`, strict
types, 422 naming the field) and redacted and bounded before the store takes its write lock;
the limits are in :mod:`hangar.hub.api.limits` and docs/api.md.

Events: ``local_run.changed {runId, issueKey, status}``, ``local_run.message {runId, seq}``,
``local_run.checklist {runId}`` (a stored message carried a checklist update).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec
from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from hangar.errors import shown
from hangar.hub.api.limits import MAX_COUNT, MAX_EXIT_CODE, MIN_EXIT_CODE, PathId
from hangar.hub.context import Hub, HubContext
from hangar.hub.run_events import publish_stored
from hangar.hub.store import local_runs as repo
from hangar.model.run_messages import (
    InvalidRunMessage,
    PostedMessage,
    RunMessage,
    UsageEntry,
    UsageReport,
    decode_run_message,
    decode_usage,
)
from hangar.protocol.codec import InvalidRequest
from hangar.redaction import redact_text

router = APIRouter(prefix="/api", tags=["local runs"])
MAX_BATCH = 500


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunCreate(_Body):
    cliName: str = Field(min_length=1, max_length=100)
    workDir: str = Field(default="", max_length=4096)
    contextDir: str | None = Field(default=None, max_length=4096)
    commentsMode: str = Field(default="thread", max_length=20)
    noStatusUpdate: bool = False
    source: str = Field(default="hangar-cli", max_length=100)
    sourceKey: str | None = Field(default=None, max_length=300)


class RunPatch(_Body):
    status: str | None = Field(default=None, max_length=20)
    exitCode: int | None = Field(default=None, ge=MIN_EXIT_CODE, le=MAX_EXIT_CODE)
    error: str | None = Field(default=None, max_length=20_000)
    activeMs: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    contextDir: str | None = Field(default=None, max_length=4096)


def _invalid(exc: InvalidRunMessage) -> InvalidRequest:
    return InvalidRequest(problems=[{"field": exc.field, "problem": exc.problem}])


def _json_body(schema: type[Any]) -> dict[str, Any]:
    """OpenAPI for a route that decodes its own body (msgspec, not pydantic)."""
    import msgspec

    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": msgspec.json.schema(schema)}},
        }
    }


def run_token(ctx: HubContext, run_id: str) -> str:
    """The run-scoped token of ``run_id``, derived from the hub token (never stored)."""
    return repo.TOKEN_PREFIX + ctx.auth.keyed_digest("run-token:" + run_id)


@router.post("/issues/{key}/local-runs", status_code=201, summary="Start a local run")
def create_run(key: PathId, body: RunCreate, ctx: Hub) -> JSONResponse:
    fields = body.model_dump()
    started_from = redact_text(body.workDir or ".")
    run, created, token = repo.create_run(
        ctx.engine,
        ctx.workspace,
        key,
        fields,
        started_from=started_from,
        mint_token=lambda run_id: run_token(ctx, run_id),
    )
    if created:
        ctx.events.publish("issue.changed", {"key": run["issueKey"]})
        ctx.events.publish(
            "local_run.changed",
            {"runId": run["id"], "issueKey": run["issueKey"], "status": run["status"]},
        )
    return JSONResponse({**run, "runToken": token}, status_code=201 if created else 200)


@router.get("/issues/{key}/local-runs", summary="Runs of an issue, newest first")
def list_runs(key: PathId, ctx: Hub) -> dict[str, Any]:
    return {"runs": repo.list_runs(ctx.engine, ctx.workspace, key)}


@router.get("/local-runs/{run_id}", summary="One run with usage and message count")
def get_run(run_id: PathId, ctx: Hub) -> dict[str, Any]:
    return repo.get_run(ctx.engine, ctx.workspace, run_id)


@router.patch("/local-runs/{run_id}", summary="Heartbeat and status (terminal is sticky)")
def patch_run(run_id: PathId, body: RunPatch, ctx: Hub) -> dict[str, Any]:
    fields = body.model_dump(exclude_unset=True)
    for name in ("error", "contextDir"):
        if isinstance(fields.get(name), str):
            fields[name] = redact_text(fields[name])  # before the write lock is taken
    run = repo.patch_run(ctx.engine, ctx.workspace, run_id, fields)
    if "status" in fields:
        ctx.events.publish(
            "local_run.changed",
            {"runId": run_id, "issueKey": run["issueKey"], "status": run["status"]},
        )
    return run


def _put_usage(ctx: HubContext, run_id: str, body: bytes) -> dict[str, Any]:
    try:
        entries: list[UsageEntry] = decode_usage(body)
    except InvalidRunMessage as exc:
        raise _invalid(exc) from None
    repo.put_usage(ctx.engine, run_id, entries)
    return repo.get_run(ctx.engine, ctx.workspace, run_id)


@router.put(
    "/local-runs/{run_id}/usage",
    summary="Cumulative token usage per provider+model",
    openapi_extra=_json_body(UsageReport),
)
async def put_usage(run_id: PathId, request: Request, ctx: Hub) -> JSONResponse:
    body = await request.body()  # bounded by BodyLimitMiddleware
    return JSONResponse(await run_in_threadpool(_put_usage, ctx, run_id, body))


def _add_message(ctx: HubContext, run_id: str, body: bytes) -> tuple[dict[str, Any], bool]:
    """Decode and validate once, redact and bound (no lock held), then store."""
    try:
        message: RunMessage = decode_run_message(body)
    except InvalidRunMessage as exc:
        raise _invalid(exc) from None
    return repo.add_message(ctx.engine, run_id, message.prepared())


@router.post(
    "/local-runs/{run_id}/messages",
    status_code=201,
    summary="Add a run message",
    openapi_extra=_json_body(PostedMessage),
)
async def add_message(run_id: PathId, request: Request, ctx: Hub) -> JSONResponse:
    body = await request.body()  # bounded by BodyLimitMiddleware
    stored, created = await run_in_threadpool(_add_message, ctx, run_id, body)
    if created:
        publish_stored(ctx.events, run_id, stored)
    return JSONResponse(stored, status_code=201 if created else 200)


class MessageBatch(msgspec.Struct):
    """The wire shape of ``POST /api/local-runs/{runId}/messages/batch``."""

    messages: Annotated[list[msgspec.Raw], msgspec.Meta(min_length=1, max_length=MAX_BATCH)]


_BATCH = msgspec.json.Decoder(MessageBatch)


def _add_messages(ctx: HubContext, run_id: str, body: bytes) -> list[tuple[dict[str, Any], bool]]:
    """Decode each message once (as the one-message route does), then store them together."""
    try:
        batch = _BATCH.decode(body)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidRequest(problems=[{"field": "messages", "problem": shown(str(exc))}]) from None
    prepared = []
    for index, raw in enumerate(batch.messages):
        try:
            prepared.append(decode_run_message(bytes(raw)).prepared())
        except InvalidRunMessage as exc:
            field = f"messages[{index}]" + (f".{exc.field}" if exc.field else "")
            raise _invalid(InvalidRunMessage(field, exc.problem)) from None
    return repo.add_messages(ctx.engine, run_id, prepared)


@router.post(
    "/local-runs/{run_id}/messages/batch",
    summary="Add run messages in order (one transaction)",
    openapi_extra=_json_body(MessageBatch),
)
async def add_message_batch(run_id: PathId, request: Request, ctx: Hub) -> JSONResponse:
    body = await request.body()  # bounded by BodyLimitMiddleware
    stored = await run_in_threadpool(_add_messages, ctx, run_id, body)
    for message, created in stored:
        if created:
            ctx.events.publish("local_run.message", {"runId": run_id, "seq": message["seq"]})
    return JSONResponse(
        {"results": [{"seq": message["seq"], "created": created} for message, created in stored]}
    )


@router.get("/local-runs/{run_id}/messages", summary="Run messages after seq `since`")
def list_messages(
    run_id: PathId,
    ctx: Hub,
    since: int = Query(0, ge=0, le=MAX_COUNT),
    limit: int = Query(500, ge=1, le=5000),
) -> dict[str, Any]:
    """At most ``limit`` messages, and fewer when they pass :data:`repo.PAGE_BYTES` (at
    least one): read on from ``nextSince``."""
    messages = repo.list_messages(ctx.engine, run_id, since, limit)
    return {"messages": messages, "nextSince": messages[-1]["seq"] if messages else since}


_ISSUE_READ = re.compile(r"^/api/issues/([^/]+)(?:/comments)?$")
_RUN_PATH = re.compile(r"^/api/local-runs/([^/]+)(/messages)?$")


RunTokenVerdict = Literal["allowed", "refused", "unknown"]
"""``allowed``: a live run's token on a route it may use; ``refused``: a run's token (live or
ended) elsewhere or after its run; ``unknown``: not a token of any run (a failed guess)."""


class RunTokenPolicy:
    """Decides what a run-scoped token may do: read its issue (and its comments), read its
    run, read and post its run's messages, while its run is running. Nothing else."""

    def __init__(self, ctx: HubContext) -> None:
        self.ctx = ctx

    def verdict(self, request: Request) -> RunTokenVerdict:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip().startswith(repo.TOKEN_PREFIX):
            return "unknown"
        grant = repo.grant_for_token(self.ctx.engine, self.ctx.workspace, token.strip())
        if grant is None:
            return "unknown"
        return "allowed" if grant.live and self._may(grant, request) else "refused"

    @staticmethod
    def _may(grant: repo.RunGrant, request: Request) -> bool:
        path, method = request.url.path, request.method
        issue = _ISSUE_READ.match(path)
        if issue and method == "GET":
            return issue.group(1).upper() == grant.issue_key.upper()
        run = _RUN_PATH.match(path)
        if run and run.group(1) == grant.run_id:
            return method == "GET" or (method == "POST" and run.group(2) is not None)
        return False
