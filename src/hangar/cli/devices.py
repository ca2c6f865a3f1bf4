"""``hangar device add|list|revoke``: the devices of a team hub, over its HTTP API."""

from __future__ import annotations

from typing import Any

import click

from hangar.cli.output import print_json
from hangar.hub_client import HubClient


@click.group("device")
def device_group() -> None:
    """Register devices with the hub, list them, revoke their tokens."""


@device_group.command("add")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def add_command(name: str, as_json: bool) -> None:
    """Register device NAME and print its token (shown once) and the command to run there."""
    with HubClient.from_environment() as hub:
        answer = hub.post("/api/devices", {"name": name})
    if as_json:
        print_json(answer)
        return
    click.echo(f"device {answer['device']['name']} registered; its token (shown only now):")
    click.echo(f"  {answer['token']}")
    click.echo("on that device run:")
    click.echo(f"  {answer['command']}")


def _line(device: dict[str, Any]) -> str:
    where = device.get("address") or device.get("clientIp") or ""
    return f"{device['name']:<20} {device['state']:<8} {where:<18} {device.get('deviceId') or '-'}"


@device_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def list_command(as_json: bool) -> None:
    """Every registered device with its state and address."""
    with HubClient.from_environment() as hub:
        answer = hub.get("/api/devices")
    if as_json:
        print_json(answer)
        return
    devices = answer["devices"]
    if not devices:
        click.echo("no devices registered (hangar device add NAME)")
    for device in devices:
        click.echo(_line(device))


@device_group.command("revoke")
@click.argument("key")
def revoke_command(key: str) -> None:
    """Revoke the token of device KEY (its name, id or device id); it is disconnected."""
    with HubClient.from_environment() as hub:
        answer = hub.post(f"/api/devices/{key}/revoke", {})
    click.echo(f"device {answer['device']['name']} revoked")
