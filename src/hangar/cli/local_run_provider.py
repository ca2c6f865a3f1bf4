"""``hangar local-run provider install|list|remove|validate``: provider plugins on this machine."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from hangar.localrun.plugins.discovery import Discovery, PluginEntry, discover
from hangar.localrun.plugins.install import install_plugin, remove_plugin
from hangar.localrun.plugins.manifest import ManifestError, load_manifest


@click.group("provider")
def provider_group() -> None:
    """Provider plugins: agent CLIs `hangar run` can drive through an adapter."""


@provider_group.command("install")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Replace an installed plugin of the same name.")
def install_command(folder: Path, replace: bool) -> None:
    """Copy the plugin in FOLDER (with provider.json) into $HANGAR_HOME/localrun-providers/."""
    manifest = install_plugin(folder, replace=replace)
    click.echo(
        f"Installed {manifest.display_name} as `{manifest.name}` ({manifest.protocol}) in "
        f"{manifest.folder}; run it with `hangar run ISSUE -- {manifest.name}`."
    )


def _entry_json(entry: PluginEntry, found: Discovery) -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": entry.name,
        "origin": entry.origin,
        "manifest": str(entry.manifest_path),
        "enabled": entry.enabled,
        "problems": [],
    }
    collision = found.collision_for(entry.name) if entry.name else None
    if collision is not None and entry in collision.entries:
        row["problems"].append(str(collision))
    try:
        manifest = load_manifest(entry.manifest_path)
    except ManifestError as exc:
        row["problems"].extend(f"{p.field}: {p.message}" for p in exc.problems)
        return row
    caps = manifest.capabilities
    row.update(
        displayName=manifest.display_name,
        protocol=manifest.protocol,
        discussions=manifest.supports_discussions,
        capabilities={
            "interactive_pty": caps.interactive_pty,
            "structured_events": caps.structured_events,
            "issue_context": caps.issue_context,
            "usage": caps.usage,
            "native_plan_handoff": caps.native_plan_handoff,
        },
        version=manifest.version,
    )
    return row


@provider_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def list_command(as_json: bool) -> None:
    """List the built-in providers and the plugins, in lookup order, with any problem."""
    found = discover()
    builtins = sorted(set(found.builtins.values()))
    rows = [_entry_json(entry, found) for entry in found.entries]
    config_problems = [str(problem) for problem in found.config_problems]
    if as_json:
        payload = {"builtins": builtins, "plugins": rows, "configProblems": config_problems}
        click.echo(json.dumps(payload, indent=2))
        return
    click.echo(f"built-in: {', '.join(builtins)}")
    if not rows:
        click.echo("plugins: none (add one with `hangar local-run provider install DIR`)")
    for row in rows:
        state = "" if row["enabled"] else " [disabled]"
        title = row.get("displayName") or "?"
        protocol = str(row.get("protocol", "?")).rsplit(".", 1)[-1]
        where = f"{row['origin']}: {row['manifest']}"
        click.echo(f"{row['name'] or '?'}  {title}  {protocol}{state}  ({where})")
        for problem in row["problems"]:
            click.echo(f"    problem: {problem}")
    for problem in config_problems:
        click.echo(f"problem: {problem}")


@provider_group.command("remove")
@click.argument("name")
def remove_command(name: str) -> None:
    """Remove the installed plugin NAME (moved to $HANGAR_HOME/trash/localrun-providers/)."""
    moved = remove_plugin(name)
    click.echo(f"Removed `{name}`; its folder is kept in {moved} until you delete it.")


@provider_group.command("validate")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--run", "run_it", is_flag=True, help="Also run the adapter through the kit.")
@click.option(
    "--spec",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Kit spec (default: kit.json in FOLDER when present).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def validate_command(folder: Path, run_it: bool, spec: Path | None, as_json: bool) -> None:
    """Check the plugin in FOLDER: its manifest, and with --run the adapter itself.

    --run runs the conformance kit of `hangar.testing.plugin_kit`: the adapter twice in an
    issue-first run (and, for v2, in a discussion) against the kit's own fake hub and, when the
    spec names a scenario, the scripted fake model; see docs/provider-plugins.md.
    """
    from hangar.testing.plugin_kit import check_manifest, check_plugin, load_kit_spec

    folder = folder.absolute()
    if run_it:
        spec_path = spec or (folder / "kit.json")
        kit_spec = load_kit_spec(spec_path if spec_path.exists() else None, folder)
        report = check_plugin(folder, kit_spec)
    else:
        report = check_manifest(folder)
    if as_json:
        click.echo(json.dumps(report.as_json(), indent=2))
    else:
        for line in report.lines():
            click.echo(line)
    if not report.ok:
        sys.exit(1)
