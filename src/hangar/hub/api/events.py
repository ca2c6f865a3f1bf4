"""``GET /api/events``: Server-Sent Events telling open pages what to refresh.

Events: ``runtime.changed {deviceId, localTaskIds?, paths?}`` (a session appeared or grew, a
task was renamed/archived…), ``issue.changed {key}``, ``index.progress {done, total}``.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import StreamingResponse

from hangar.hub.context import Hub

router = APIRouter(prefix="/api", tags=["events"])


@router.get("/events", summary="Server-Sent Events stream (text/event-stream)")
def events(ctx: Hub) -> StreamingResponse:
    return StreamingResponse(
        ctx.events.stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
