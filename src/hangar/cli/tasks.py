"""``hangar tasks list|show``: this device's agent sessions, read directly (no hub needed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

import click

from hangar.cli.checklist_view import checklist_lines
from hangar.cli.hangar_click import HangarGroup
from hangar.cli.lazy import LazyCommand
from hangar.cli.local_executor import open_executor
from hangar.cli.output import print_json
from hangar.errors import UsageError
from hangar.hub.runtime_work import group_path, is_conversation, project_name
from hangar.transcripts.paging import MAX_LIMIT

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
    "adopt": LazyCommand(
        "hangar.cli.tasks_adopt:adopt_command",
        "Adopt TASK into ISSUE (or a new issue): its log imported, later turns followed.",
    ),
    "purge": LazyCommand(
        "hangar.cli.tasks_lifecycle:purge_command",
        "Remove a deleted TASK from the trash for good (or all expired ones).",
    ),
    "send": LazyCommand(
        "hangar.cli.tasks_send:send_command",
        "Send TEXT to a task and print the reply as it streams.",
    ),
    "export": LazyCommand(
        "hangar.cli.tasks_export:export_command",
        "Export TASK's whole transcript with secrets redacted.",
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


@click.group("tasks", cls=HangarGroup, lazy=LIFECYCLE_COMMANDS)
def tasks_group() -> None:
    """Agent sessions on this device (Codex, Claude Code, …)."""


def runtime_option(value: str | None) -> str | None:
    """``--runtime``: an agent's runtime name, any case (``Claude`` is ``claude``)."""
    if value is None:
        return None
    from hangar.agents.registry import agents

    known = sorted(agents())
    name = value.strip().lower()
    if name not in known:
        raise UsageError(f"unknown agent {value!r}; one of: {', '.join(known)}")
    return name


def _clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _groups(tasks: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Tasks by Project (newest Project first), then the Conversations; each newest first,
    as the web UI groups them."""
    projects: dict[str, list[dict[str, Any]]] = {}
    conversations: list[dict[str, Any]] = []
    for task in tasks:  # the executor lists newest first
        if is_conversation(task):
            conversations.append(task)
        else:
            projects.setdefault(group_path(task), []).append(task)
    out = [
        (f"{project_name(path)}  {path}  ({_count(items)})", items)
        for path, items in projects.items()
    ]
    if conversations:
        out.append((f"Conversations  ({_count(conversations)})", conversations))
    return out


def _count(items: list[dict[str, Any]]) -> str:
    return f"{len(items)} session" + ("" if len(items) == 1 else "s")


def task_table(tasks: list[dict[str, Any]], now: datetime | None = None) -> list[str]:
    """The lines of ``hangar tasks list``: one header, then each group with its tasks in
    columns as wide as their widest value (a long agent name never shifts a row)."""
    agent_width = max([len("AGENT"), *(len(t["runtime"]) for t in tasks)])
    status_width = max([len("STATUS"), *(len(t["status"]) for t in tasks)])
    when = {t["localTaskId"]: relative_time(t["updatedAt"], now) for t in tasks}
    when_width = max([len("UPDATED"), *(len(w) for w in when.values())])

    def row(task_id: str, agent: str, status: str, updated: str, title: str) -> str:
        return (
            f"  {task_id:<10}  {agent:<{agent_width}}  {status:<{status_width}}"
            f"  {updated:>{when_width}}  {title}"
        ).rstrip()

    lines = [row("ID", "AGENT", "STATUS", "UPDATED", "TITLE")]
    for heading, items in _groups(tasks):
        lines.append(heading)
        for task in items:
            title = _clip(task["title"] or "(untitled)", 70)
            notes = []
            if task["workspaceKind"] == "worktree":
                notes.append(f"worktree {PurePosixPath(task['workspacePath'] or '').name}")
            if task.get("archived"):
                notes.append("archived")
            if notes:
                title += f"  [{', '.join(notes)}]"
            lines.append(
                row(
                    task["localTaskId"][:10],
                    task["runtime"],
                    task["status"],
                    when[task["localTaskId"]],
                    title,
                )
            )
    return lines


@tasks_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the API shape.")
@click.option("--runtime", help="Only this agent (codex, claude, …; any case).")
@click.option("--all", "include_archived", is_flag=True, help="Include archived sessions.")
def list_command(as_json: bool, runtime: str | None, include_archived: bool) -> None:
    """List sessions grouped by project (newest first), then the conversations."""
    runtime = runtime_option(runtime)
    with open_executor() as executor:
        payload: dict[str, Any] = {"includeArchived": include_archived}
        if runtime:
            payload["runtime"] = runtime
        data = executor.handle("runtime.tasks.list", payload)
    if as_json:
        print_json(data)
        return
    if not data["tasks"]:
        where = f" of {runtime}" if runtime else ""
        click.echo(
            f"no sessions{where} found"
            + ("" if include_archived else " (--all includes archived ones)")
        )
        return
    for line in task_table(data["tasks"]):
        click.echo(line)


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
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=50,
    show_default=True,
    help="Messages per page.",
)
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
    if not data["messages"]:
        click.echo("no messages")
    for message in data["messages"]:
        when = relative_time(message.get("createdAt"))
        status = message.get("status") or "done"
        shown = "" if status == "done" else f" · {status}"
        click.echo(f"\n#{message['index']} {message['role']}{shown} · {when}")
        for block in message.get("blocks") or []:
            if block.get("type") != "text":
                click.echo(_block_line(block))
        if message.get("content"):
            click.echo(message["content"])
        for attachment in message.get("attachments") or []:
            # RW-221: which files the request named, after any refresh (on this device the
            # local path is the user's own, so the terminal shows it).
            where = attachment.get("path")
            click.echo(
                f"📎 {attachment.get('name') or 'attachment'}" + (f"  {where}" if where else "")
            )
        if message.get("error"):
            click.echo(f"✗ error: {message['error']}")
