"""``GET /api/usage``: token usage and cost from every online device, grouped.

Each device counts its own sessions (``runtime.usage.summary``, the counting rules in
:mod:`hangar.executor.usage`); the hub merges the rows: per task they stay per device, by
project, day or model they are summed across devices.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from hangar.errors import HangarError
from hangar.hub.context import Hub, HubContext
from hangar.model import TokenUse
from hangar.protocol import methods as m
from hangar.protocol.codec import decode, to_json
from hangar.protocol.usage import GroupBy, UsageReport, UsageRequest, UsageRow

router = APIRouter(prefix="/api/usage", tags=["usage"])
DAY = r"^\d{4}-\d{2}-\d{2}$"


def _merge(into: UsageRow | None, row: UsageRow) -> UsageRow:
    if into is None:
        return row
    cost = None
    if into.cost_usd is not None or row.cost_usd is not None:
        cost = round((into.cost_usd or 0.0) + (row.cost_usd or 0.0), 6)
    tokens: TokenUse = into.tokens.plus(row.tokens)
    return UsageRow(
        key=into.key,
        label=into.label,
        calls=into.calls + row.calls,
        tokens=tokens,
        total_tokens=tokens.total,
        cost_usd=cost,
        unpriced_tokens=into.unpriced_tokens + row.unpriced_tokens,
        local_task_id=into.local_task_id,
        runtime=into.runtime,
        project=into.project,
        models=sorted({*into.models, *row.models}),
    )


def usage_view(ctx: HubContext, request: UsageRequest) -> dict[str, Any]:
    """Every online device's report, merged (also rendered by the Usage page)."""
    rows: dict[str, tuple[str, UsageRow]] = {}
    total: UsageRow | None = None
    errors: list[dict[str, str]] = []
    for info in ctx.device_infos():
        try:
            report: UsageReport = ctx.devices.link(info.device_id).call(
                m.USAGE_SUMMARY.name, request
            )
        except HangarError as exc:  # one failing device must not hide the others
            errors.append({"deviceId": info.device_id, "code": exc.code, "message": str(exc)})
            continue
        for row in report.rows:
            key = f"{info.device_id}:{row.key}" if request.by == "task" else row.key
            device, seen = rows.get(key, (info.device_id, None))
            rows[key] = (device, _merge(seen, row))
        total = _merge(total, report.total)
    ordered = sorted(rows.values(), key=lambda item: (-item[1].total_tokens, item[1].key))
    if request.by == "day":
        ordered = sorted(rows.values(), key=lambda item: item[1].key, reverse=True)
    out_rows = []
    for device, row in ordered:
        item = to_json(row)
        if request.by == "task":
            item["deviceId"] = device
        out_rows.append(item)
    return {
        "by": request.by,
        "rows": out_rows,
        "total": to_json(total) if total is not None else None,
        "errors": errors,
    }


@router.get("", summary="Token usage and cost, by task, project, day or model")
def usage(
    ctx: Hub,
    by: GroupBy = "task",
    since: Annotated[str | None, Query(pattern=DAY)] = None,
    until: Annotated[str | None, Query(pattern=DAY)] = None,
) -> dict[str, Any]:
    query: dict[str, str] = {"by": by}
    if since:
        query["since"] = since
    if until:
        query["until"] = until
    return usage_view(ctx, decode(UsageRequest, query))
