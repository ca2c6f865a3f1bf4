"""``hangar tasks adopt TASK [ISSUE]``: adopt a session started outside hangar into an issue.

A lazy entry of ``hangar tasks``. TASK is found on this device (a localTaskId, a unique
prefix, or the agent's own session id); the hub (``HANGAR_SERVER_URL``/``HANGAR_TOKEN``, else
this home's ``hangar serve``) links it to ISSUE — or to a new issue made of the session's first
request — as a local run, imports its execution log, and keeps syncing its later turns while
it runs (``POST /api/runtime-work/adopt``, docs/local-runs.md "Adopting a session").
"""

from __future__ import annotations

from typing import Any

import click

from hangar.cli.local_executor import open_executor
from hangar.cli.output import print_json
from hangar.hub_client import HubClient


@click.command("adopt")
@click.argument("task")
@click.argument("issue", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the API's answer.")
def adopt_command(task: str, issue: str | None, as_json: bool) -> None:
    """Adopt TASK into ISSUE (or a new issue): its log imported, later turns followed.

    TASK: a localTaskId, a unique prefix, or the agent's session id. Without ISSUE, the new
    issue is made of the session's first request. Needs a hub (`hangar serve`)."""
    with open_executor() as executor:
        local_task_id = executor.resolve_task(task)
        device_id = executor.device.device_id
        runtime = executor.index.get(local_task_id).runtime
    body: dict[str, Any] = {"deviceId": device_id, "localTaskId": local_task_id}
    if issue:
        body["issueKey"] = issue
    with HubClient.from_environment() as client:
        answer = client.post("/api/runtime-work/adopt", body)
    if as_json:
        print_json(answer)
        return
    key, imported = answer["issueKey"], answer["imported"]
    if answer["created"]:
        made = " (a new issue made of its first request)" if answer["issueCreated"] else ""
        click.echo(
            f"Adopted the {runtime} session {local_task_id[:10]} into {key}{made}: "
            f"{imported} messages imported. Its later turns sync while `hangar serve` runs."
        )
    else:
        click.echo(
            f"The {runtime} session {local_task_id[:10]} was adopted into {key} before: "
            f"{imported} new messages imported."
        )
