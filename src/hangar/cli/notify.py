"""``hangar notify on|off|status``: the user's runtime-task notifications, over the hub API."""

from __future__ import annotations

import click

from hangar.cli.output import print_json
from hangar.hub_client import HubClient


@click.command("notify")
@click.argument("action", type=click.Choice(["on", "off", "status"]))
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def notify_command(action: str, as_json: bool) -> None:
    """Turn runtime-task notifications on or off, or show their state."""
    with HubClient.from_environment() as hub:
        if action == "status":
            answer = hub.get("/api/notifications")
        else:
            answer = hub.post("/api/notifications/global", {"enabled": action == "on"})
    if as_json:
        print_json(answer)
        return
    state = "on" if answer["enabled"] else "off"
    click.echo(f"notifications: {state}, {len(answer['targets'])} target(s)")
    for target in answer["targets"]:
        click.echo(f"  {target['name']:<16} {target['scope']:<7} {target['url']}")
    failing = [d for d in answer["deliveries"] if d["status"] in ("failed", "retrying")]
    for item in failing[:5]:
        click.echo(f"  ! {item['target']}: {item['status']} ({item['lastError']})")
