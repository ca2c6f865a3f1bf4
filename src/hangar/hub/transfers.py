"""Copying a task to another device, driven by the hub (RW-306, RW-313..318).

:func:`copy_across` asks the source for the task's git facts and the target whether its
project has the same remote and which of ``HEAD`` and the local commits' base it has. With
``HEAD`` there, the patch needs no commits (base = ``HEAD``); with only the base there, the
local commits travel as a bundle (a git fork: the source exports the light package, the
target imports it; it passes through the hub's device links, checked by its SHA-256).

Otherwise — either side not a git workspace, another remote, neither commit on the target —
the copy is an archive transfer (:func:`archive_copy`): the source offers the archive on its
transfer listener to the holder of a fresh token; the target tries only the TCP peer address
the hub sees on the source's WebSocket and the transfer host the source reported, each
verified by the token-bearing probe. When neither works, the hub falls back to its object
storage (presigned URLs: the source uploads, the target downloads); without one it answers
503 ``transfer_unavailable`` naming what was tried — never a silent unusable path.
"""

from __future__ import annotations

import contextlib
import secrets
import uuid
from dataclasses import dataclass
from typing import Any, ClassVar

import msgspec

from hangar.errors import HangarError, UsageError
from hangar.hub.context import HubContext
from hangar.protocol import methods as m
from hangar.protocol import transfer as tr
from hangar.protocol.codec import to_json


@dataclass(eq=False)
class TransferUnavailable(HangarError):
    """No way to carry this copy (HTTP 503)."""

    reason: str = ""
    code: ClassVar[str] = "transfer_unavailable"
    http_status: ClassVar[int] = 503

    def details(self) -> dict[str, Any]:
        return {"reason": self.reason}


class _ArchiveNeeded(Exception):
    """The git conditions are not met (``reason``): the copy goes as an archive."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def copy_across(
    ctx: HubContext,
    device_id: str,
    local_task_id: str,
    last_turn_id: str,
    new_local_task_id: str,
    target_device_id: str,
    target_workspace_path: str,
) -> dict[str, Any]:
    try:
        return _git_fork(
            ctx, device_id, local_task_id, last_turn_id, new_local_task_id,
            target_device_id, target_workspace_path,
        )  # fmt: skip
    except _ArchiveNeeded as needed:
        return archive_copy(
            ctx, device_id, local_task_id, last_turn_id, new_local_task_id,
            target_device_id, target_workspace_path, needed.reason,
        )  # fmt: skip


def _git_fork(
    ctx: HubContext,
    device_id: str,
    local_task_id: str,
    last_turn_id: str,
    new_local_task_id: str,
    target_device_id: str,
    target_workspace_path: str,
) -> dict[str, Any]:
    source = ctx.devices.link(device_id)
    target = ctx.devices.link(target_device_id)
    facts: tr.SourceInfo = source.call(
        m.TRANSFER_SOURCE.name, tr.SourceRequest(local_task_id=local_task_id)
    )
    if not facts.git or not facts.head or not facts.base:
        raise _ArchiveNeeded("the source task's workspace is not a git repository")
    if not facts.remote_url:
        raise _ArchiveNeeded("the source repository has no remote")
    check: tr.TargetCheck = target.call(
        m.TRANSFER_CHECK.name,
        tr.CheckTarget(
            workspace_path=target_workspace_path,
            remote_url=facts.remote_url,
            commits=sorted({facts.head, facts.base}),
        ),
    )
    if not check.git:
        raise _ArchiveNeeded("the target project is not a git repository")
    if not check.same_remote:
        raise _ArchiveNeeded(
            f"the target's remote {check.remote_url} is not the source's {facts.remote_url}"
        )
    if facts.head in check.reachable:
        base = facts.head
    elif facts.base in check.reachable:
        base = facts.base
    else:
        raise _ArchiveNeeded(f"the target repository has neither {facts.head} nor its base")
    transfer_id = uuid.uuid4().hex
    package: tr.Package = source.call(
        m.TRANSFER_EXPORT.name,
        tr.ExportRequest(
            local_task_id=local_task_id,
            last_turn_id=last_turn_id,
            transfer_id=transfer_id,
            base=base,
        ),
    )
    if len(package.data) > tr.MAX_PACKAGE_BYTES:
        raise UsageError("the package is larger than a git fork's package may be")
    copied = target.call(
        m.TRANSFER_IMPORT.name,
        tr.ImportRequest(
            transfer_id=transfer_id,
            workspace_path=check.workspace_path,
            new_local_task_id=new_local_task_id,
            data=package.data,
            sha256=package.sha256,
        ),
    )
    return {
        "deviceId": target_device_id,
        **to_json(copied),
        "method": "git_fork",
        "transferId": transfer_id,
        "sourceDeviceId": device_id,
        "package": {"bytes": len(package.data), "sha256": package.sha256,
                    "members": package.members},
    }  # fmt: skip


def archive_copy(
    ctx: HubContext,
    device_id: str,
    local_task_id: str,
    last_turn_id: str,
    new_local_task_id: str,
    target_device_id: str,
    target_workspace_path: str,
    why: str,
) -> dict[str, Any]:
    """The copy as an archive: direct first, object storage second, else 503."""
    source = ctx.devices.link(device_id)
    target = ctx.devices.link(target_device_id)
    transfer_id, token = uuid.uuid4().hex, secrets.token_urlsafe(32)
    offer: tr.ArchiveOffer = source.call(
        m.TRANSFER_OFFER.name,
        tr.OfferRequest(
            local_task_id=local_task_id,
            last_turn_id=last_turn_id,
            transfer_id=transfer_id,
            token=token,
        ),
    )
    seen = {s.device_id: s for s in ctx.devices.states()}.get(device_id)
    hosts = [h for h in (seen.client_ip, seen.transfer_host) if h] if seen else []
    fetch = tr.FetchRequest(
        transfer_id=transfer_id,
        workspace_path=target_workspace_path,
        new_local_task_id=new_local_task_id,
        sha256=offer.sha256,
        size=offer.size,
        hosts=hosts,
        port=offer.port,
        token=token,
    )
    try:
        try:
            copied = target.call(m.TRANSFER_FETCH.name, fetch)
        except HangarError as exc:
            if exc.code != "direct_unavailable":
                raise
            copied = _through_storage(ctx, source, target, fetch, str(exc))
    finally:  # served or given up: the source keeps nothing of it
        with contextlib.suppress(HangarError):
            source.call(m.TRANSFER_WITHDRAW.name, tr.WithdrawRequest(transfer_id=transfer_id))
    return {
        "deviceId": target_device_id,
        **to_json(copied),
        "method": "archive",
        "reason": why,
        "transferId": transfer_id,
        "sourceDeviceId": device_id,
        "package": {"bytes": offer.size, "sha256": offer.sha256},
    }


def _through_storage(
    ctx: HubContext, source: Any, target: Any, fetch: tr.FetchRequest, direct: str
) -> Any:
    storage = ctx.object_storage
    if storage is None:
        raise TransferUnavailable(
            f"{direct}, and this hub has no object storage configured (transfer_storage_url)",
            reason=direct,
        )
    transfer_id = fetch.transfer_id
    source.call(
        m.TRANSFER_UPLOAD.name,
        tr.UploadRequest(transfer_id=transfer_id, url=storage.presigned("put_object", transfer_id)),
    )
    try:
        return target.call(
            m.TRANSFER_FETCH.name,
            msgspec.structs.replace(
                fetch, hosts=[], token=None,
                object_url=storage.presigned("get_object", transfer_id),
            ),
        )  # fmt: skip
    finally:
        storage.delete(transfer_id)
