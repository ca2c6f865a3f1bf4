"""``/api/notifications``: the switch, targets (Apprise URLs), subscriptions, deliveries.

- ``GET /api/notifications``: ``{enabled, targets[], subscriptions[], deliveries[], failing}``
  (target URLs with their secrets masked; recent deliveries with their last error).
- ``POST /api/notifications/global {enabled}``: the user's global switch (``hangar notify``).
- ``POST /api/notifications/targets {name, url, scope}``, ``…/targets/{key}/delete``,
  ``…/targets/{key}/test``.
- ``POST /api/notifications/subscriptions {target, deviceId, localTaskId}`` and
  ``…/subscriptions/delete``: one task's updates for one target (RW-328), keyed by
  ``deviceId`` + ``localTaskId``, never a path (RW-325).

The IM command webhooks (``/hooks/im/…``) are in :mod:`hangar.hub.api.im_hooks`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from hangar.errors import HangarError
from hangar.hub.api.bodies import body_schema, json_body
from hangar.hub.context import Hub, HubContext
from hangar.hub.notify import sender, store
from hangar.hub.notify.service import Notifications
from hangar.protocol.codec import Wire
from hangar.protocol.tasks import Id

router = APIRouter(prefix="/api/notifications", tags=["notifications"])

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Url = Annotated[str, msgspec.Meta(min_length=3, max_length=4000)]


class Switch(Wire):
    enabled: bool


class TargetAdd(Wire):
    name: Name
    url: Url
    scope: Literal["global", "task"] = "global"


class Subscription(Wire):
    target: Name
    """The target's name or id."""
    device_id: Id
    local_task_id: Id


SwitchBody = Annotated[Switch, json_body(Switch)]
TargetAddBody = Annotated[TargetAdd, json_body(TargetAdd)]
SubscriptionBody = Annotated[Subscription, json_body(Subscription)]


class NotificationsOff(HangarError):
    code = "not_supported"
    http_status = 501


def service(ctx: HubContext) -> Notifications:
    if ctx.notifications is None:
        raise NotificationsOff("this hub sends no notifications")
    return ctx.notifications


def _changed(ctx: HubContext) -> None:
    ctx.events.publish("notifications.changed", {})


@router.get("", summary="Notification switch, targets, subscriptions and recent deliveries")
def status(ctx: Hub) -> dict[str, Any]:
    return service(ctx).status()


@router.post("/global", summary="Turn notifications on or off", openapi_extra=body_schema(Switch))
def switch(body: SwitchBody, ctx: Hub) -> dict[str, Any]:
    answer = service(ctx).set_enabled(body.enabled)
    _changed(ctx)
    return answer


@router.post("/targets", summary="Add an Apprise URL target", openapi_extra=body_schema(TargetAdd))
def add_target(body: TargetAddBody, ctx: Hub) -> dict[str, Any]:
    notifications = service(ctx)
    found = store.add_target(
        notifications.engine, notifications.member_id, body.name, body.url, body.scope
    )
    _changed(ctx)
    return {"target": found}


@router.post("/targets/{key}/delete", summary="Remove a target (by name or id)")
def delete_target(key: str, ctx: Hub) -> dict[str, Any]:
    notifications = service(ctx)
    store.delete_target(notifications.engine, notifications.member_id, key)
    _changed(ctx)
    return {"deleted": True}


@router.post("/targets/{key}/test", summary="Send a test notification to a target now")
async def test_target(key: str, ctx: Hub) -> dict[str, Any]:
    notifications = service(ctx)
    found = await run_in_threadpool(
        store.target, notifications.engine, notifications.member_id, key
    )
    url = await run_in_threadpool(store.target_url, notifications.engine, found["id"])
    error = await run_in_threadpool(sender.send, url, "hangar", "test notification from hangar")
    return {"sent": error is None, "error": error}


@router.post(
    "/subscriptions",
    summary="Send one task's final replies to a target",
    openapi_extra=body_schema(Subscription),
)
def subscribe(body: SubscriptionBody, ctx: Hub) -> dict[str, Any]:
    notifications = service(ctx)
    found = store.subscribe(
        notifications.engine,
        notifications.member_id,
        body.target,
        body.device_id,
        body.local_task_id,
    )
    _changed(ctx)
    return {"subscription": found}


@router.post(
    "/subscriptions/delete",
    summary="Stop sending one task's replies to a target",
    openapi_extra=body_schema(Subscription),
)
def unsubscribe(body: SubscriptionBody, ctx: Hub) -> dict[str, Any]:
    notifications = service(ctx)
    store.unsubscribe(
        notifications.engine,
        notifications.member_id,
        body.target,
        body.device_id,
        body.local_task_id,
    )
    _changed(ctx)
    return {"deleted": True}
