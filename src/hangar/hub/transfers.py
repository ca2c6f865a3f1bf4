"""Copying a task to another device, driven by the hub (RW-306, RW-313, RW-317, RW-318).

:func:`copy_across` asks the source for the task's git facts and the target whether its
project has the same remote and which of ``HEAD`` and the local commits' base it has. With
``HEAD`` there, the patch needs no commits (base = ``HEAD``); with only the base there, the
local commits travel as a bundle; otherwise — or when either side is not a git workspace —
the git conditions are not met and the copy would need an archive transfer, which this hub
cannot make (no direct executor-to-executor path and no object storage): 503
``transfer_unavailable``, never a silent half copy. Then the source exports the package and
the target imports it; the package passes through the hub's device links, checked by its
SHA-256 on the target.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, ClassVar

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


def _archive_needed(reason: str) -> TransferUnavailable:
    return TransferUnavailable(
        f"{reason}: the copy needs an archive transfer, and this hub has neither a direct "
        "executor-to-executor path nor object storage for one",
        reason=reason,
    )


def copy_across(
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
        raise _archive_needed("the source task's workspace is not a git repository")
    if not facts.remote_url:
        raise _archive_needed("the source repository has no remote")
    check: tr.TargetCheck = target.call(
        m.TRANSFER_CHECK.name,
        tr.CheckTarget(
            workspace_path=target_workspace_path,
            remote_url=facts.remote_url,
            commits=sorted({facts.head, facts.base}),
        ),
    )
    if not check.git:
        raise _archive_needed("the target project is not a git repository")
    if not check.same_remote:
        raise _archive_needed(
            f"the target's remote {check.remote_url} is not the source's {facts.remote_url}"
        )
    if facts.head in check.reachable:
        base = facts.head
    elif facts.base in check.reachable:
        base = facts.base
    else:
        raise _archive_needed(f"the target repository has neither {facts.head} nor its base")
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
