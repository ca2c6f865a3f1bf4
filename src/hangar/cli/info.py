"""``hangar version``, ``hangar paths`` and ``hangar status``.

``version`` is what a user runs to see that hangar works at all: it imports nothing beyond
click; the other two import the registry and the databases inside their own bodies.
"""

from __future__ import annotations

import json

import click

from hangar import __version__


def _print_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


@click.command("version")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def version_command(as_json: bool) -> None:
    """Print hangar's version."""
    if as_json:
        import platform

        _print_json({"version": __version__, "python": platform.python_version()})
    else:
        click.echo(f"hangar {__version__}")


@click.command("paths")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def paths_command(as_json: bool) -> None:
    """Print where hangar keeps its state and where each agent keeps its sessions."""
    from hangar.agents.registry import agent_homes
    from hangar.paths import hangar_paths

    paths = hangar_paths()
    homes = agent_homes()
    if as_json:
        data: dict[str, object] = dict(paths.as_json())
        data["agents"] = {name: home.as_json() for name, home in homes.items()}
        _print_json(data)
        return
    for key, value in paths.as_json().items():
        click.echo(f"{key:<14} {value}")
    click.echo("agents:")
    for name, home in homes.items():
        via = f"  (from ${home.override})" if home.override else ""
        click.echo(f"  {name:<12} {home.root}{via}")


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status_command(as_json: bool) -> None:
    """Open this device's state (creating and migrating it) and print a summary."""
    from hangar.composition import LocalHangar  # the ORM only for the command that needs it
    from hangar.executor.database import bundled_migrations
    from hangar.hub.store.database import current_revision, head_revision

    with LocalHangar.open() as local:
        executor = local.executor
        data = {
            "home": str(executor.settings.paths.home),
            "device": executor.device.as_json(),
            "executorDb": {
                "schemaVersion": executor.db.schema_version(),
                "latest": len(bundled_migrations()),
            },
            "hubDb": {
                "revision": current_revision(local.hub_engine),
                "latest": head_revision(local.hub_engine),
            },
        }
    if as_json:
        _print_json(data)
        return
    device = data["device"]
    assert isinstance(device, dict)
    click.echo(f"device   {device['name']} ({device['deviceId']})")
    click.echo(f"home     {data['home']}")
    click.echo(f"executor schema {data['executorDb']}")
    click.echo(f"hub      schema {data['hubDb']}")
