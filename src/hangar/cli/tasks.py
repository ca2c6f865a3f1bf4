"""``hangar tasks list|show``: this device's agent sessions, read directly (no hub needed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click

from hangar.cli.checklist_view import checklist_lines
from hangar.cli.lazy import LazyCommand, LazyGroup
from hangar.cli.local_executor import open_executor
from hangar.cli.output import print_json

LIFECYCLE_COMMANDS: dict[str, LazyCommand] = {
    "rename": LazyCommand(
        "hangar.cli.tasks_lifecycle:rename_command",
        "Give TASK a new TITLE (Codex through Codex itself).",
    ),
    "archive": LazyCommand(
        "hangar.cli.tasks_lifecycle:archive_command",
        "Archive TASK (it leaves the list; `tasks list --all` still shows it).",
    ),
    "unarchive": LazyCommand(
        "hangar.cli.tasks_lifecycle:unarchive_command", "Bring an archived TASK back to the list."
    ),
    "delete": LazyCommand(
        "hangar.cli.tasks_lifecycle:delete_command",
        "Delete TASKS: hidden at once, files moved to the trash (restorable until purged).",
    ),
    "restore": LazyCommand(
        "hangar.cli.tasks_lifecycle:restore_command",
        "Undo the delete of TASK: its files come back byte for byte.",
    ),
    "purge": LazyCommand(
        "hangar.cli.tasks_lifecycle:purge_command",
        "Remove a deleted TASK from the trash for good (or all expired ones).",
    ),
    "send": LazyCommand(
        "hangar.cli.tasks_send:send_command",
        "Send TEXT to a task and print the reply as it streams.",
    ),
    "models": LazyCommand(
        "hangar.cli.tasks_send:models_command",
        "The models TASK's agent offers (for send --model) and what hangar can do with it.",
    ),
}
"""The commands that change or continue a task (``hangar.cli.tasks_lifecycle``,
``hangar.cli.tasks_send``), loaded when used."""


def relative_time(stamp: str | None, now: datetime | None = None) -> str:
    """``3m ago``-style text for an ISO timestamp (the raw text if it does not parse)."""
    if not stamp:
        return "-"
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = int(((now or datetime.now(UTC)) - when).total_seconds())
    if seconds < 0:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"


@click.group("tasks", cls=LazyGroup, lazy=LIFECYCLE_COMMANDS)
def tasks_group() -> None:
    """Agent sessions on this device (Codex, Claude Code, …)."""


@tasks_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the API shape.")
@click.option("--runtime", help="Only this agent (codex, claude, …).")
@click.option("--all", "include_archived", is_flag=True, help="Include archived sessions.")
def list_command(as_json: bool, runtime: str | None, include_archived: bool) -> None:
    """List sessions, newest first."""
    with open_executor() as executor:
        payload: dict[str, Any] = {"includeArchived": include_archived}
        if runtime:
            payload["runtime"] = runtime
        data = executor.handle("runtime.tasks.list", payload)
    if as_json:
        print_json(data)
        return
    for task in data["tasks"]:
        kind = {"worktree": "⎇ ", "chat": "💬"}.get(task["workspaceKind"], "  ")
        click.echo(
            f"{task['localTaskId'][:10]}  {task['runtime']:<7} {task['status']:<9}"
            f" {relative_time(task['updatedAt']):>9}  {kind} {task['title'][:60]}"
            f"  [{task['workspacePath'] or '-'}]"
        )
    if not data["tasks"]:
        click.echo("no sessions found")


def _brief_input(value: Any) -> str:
    """A tool's input on one line: the command for shells, else compact JSON."""
    if isinstance(value, dict):
        for key in ("cmd", "command", "file_path", "path", "pattern", "query", "prompt"):
            if isinstance(value.get(key), str | list):
                shown = value[key]
                text = " ".join(map(str, shown)) if isinstance(shown, list) else shown
                return text.replace("\n", " ⏎ ")[:80]
    if isinstance(value, str):
        return value.replace("\n", " ⏎ ")[:80]
    return json.dumps(value, ensure_ascii=False)[:80]


def _block_line(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "tool":
        status = (
            "✗" if block.get("isError") else "✓" if block.get("status", "done") == "done" else "…"
        )
        brief = _brief_input(block.get("input"))
        return f"  ▸ {block.get('name')} {brief} {status}"
    if kind == "thinking":
        text = block.get("text") or "(redacted)"
        return f"  ∴ {text.splitlines()[0][:80]}"
    if kind == "checklist":
        return "\n".join("  " + line for line in checklist_lines(block, indent="    "))
    if kind == "fileChanges":
        files = ", ".join(f["path"] for f in block.get("files", []))
        return f"  ± {files[:90]}"
    return f"  • {kind}"


@tasks_group.command("show")
@click.argument("task")
@click.option("--limit", type=int, default=50, show_default=True, help="Messages per page.")
@click.option("--before", "before", help="A beforeCursor from a previous page.")
@click.option("--json", "as_json", is_flag=True, help="Print the API shape.")
def show_command(task: str, limit: int, before: str | None, as_json: bool) -> None:
    """Show a session's transcript. TASK: a localTaskId, a unique prefix, or a session id."""
    with open_executor() as executor:
        local_task_id = executor.resolve_task(task)
        payload: dict[str, Any] = {"localTaskId": local_task_id, "limit": limit}
        if before:
            payload["beforeCursor"] = before
        data = executor.handle("runtime.tasks.transcript", payload)
    if as_json:
        print_json(data)
        return
    info = data["task"]
    click.echo(f"{info['title']}  ({info['runtime']}, {info['status']}, {info['workspacePath']})")
    if data.get("checklist") is not None:
        # The current list (the latest turn's own) on top, as the web UI shows it.
        click.echo("\n".join(checklist_lines(data["checklist"])))
    if data.get("hasMore"):
        click.echo(f"… earlier messages: --before {data['beforeCursor']}")
    for message in data["messages"]:
        when = relative_time(message.get("createdAt"))
        click.echo(f"\n#{message['index']} {message['role']} · {when}")
        for block in message.get("blocks") or []:
            if block.get("type") != "text":
                click.echo(_block_line(block))
        if message.get("content"):
            click.echo(message["content"])
