"""``hangar issue create|list|show|edit|status|close|comment``: the issue tracker from the
terminal, over HTTP."""

from __future__ import annotations

import json
import sys
from typing import Any
from urllib.parse import quote

import click

from hangar.cli.hangar_click import HangarGroup
from hangar.errors import UsageError
from hangar.hub_client import HubClient

STATUSES = ("backlog", "todo", "in_progress", "in_review", "done", "cancelled")
PRIORITIES = ("none", "urgent", "high", "medium", "low")


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _line(issue: dict[str, Any]) -> str:
    labels = f"  [{', '.join(issue['labels'])}]" if issue.get("labels") else ""
    return (
        f"{issue['key']:<9} {issue['status']:<12} {issue['priority']:<7} {issue['title']}{labels}"
    )


def issue_path(key: str, *rest: str) -> str:
    """``/api/issues/KEY[/…]`` for a key the user typed; an empty key is a usage error (it
    would name the issue list, not an issue)."""
    cleaned = key.strip()
    if not cleaned:
        raise UsageError("give an issue key, e.g. HGR-12")
    return "/".join(["/api/issues", quote(cleaned, safe=""), *rest])


def _read_text(value: str | None) -> str | None:
    return sys.stdin.read() if value == "-" else value


@click.group("issue", cls=HangarGroup)
def issue_group() -> None:
    """Create, list, show, edit and comment on issues of the hub."""


@issue_group.command("create")
@click.argument("title")
@click.option("-d", "--description", default=None, help="Markdown description ('-' reads stdin).")
@click.option("--status", type=click.Choice(STATUSES, case_sensitive=False), default=None)
@click.option("--priority", type=click.Choice(PRIORITIES, case_sensitive=False), default=None)
@click.option("-l", "--label", "labels", multiple=True, help="A label (repeatable).")
@click.option("--parent", "parent_key", default=None, help="Parent issue key, e.g. HGR-3.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def create_command(
    title: str,
    description: str | None,
    status: str | None,
    priority: str | None,
    labels: tuple[str, ...],
    parent_key: str | None,
    as_json: bool,
) -> None:
    """Create an issue titled TITLE and print its key."""
    body: dict[str, Any] = {"title": title}
    for key, value in (
        ("description", _read_text(description)),
        ("status", status),
        ("priority", priority),
        ("parentKey", parent_key),
    ):
        if value is not None:
            body[key] = value
    if labels:
        body["labels"] = list(labels)
    with HubClient.from_environment() as hub:
        issue = hub.post("/api/issues", body)
    if as_json:
        _print_json(issue)
    else:
        click.echo(issue["key"])


@issue_group.command("list")
@click.option("--status", default=None, help="Comma-separated statuses.")
@click.option("--priority", default=None, help="Comma-separated priorities.")
@click.option("--label", default=None)
@click.option("-q", "--query", default=None, help="Text in title or description.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def list_command(
    status: str | None, priority: str | None, label: str | None, query: str | None, as_json: bool
) -> None:
    """List issues, newest first."""
    with HubClient.from_environment() as hub:
        data = hub.get("/api/issues", status=status, priority=priority, label=label, q=query)
    if as_json:
        _print_json(data)
        return
    for issue in data["issues"]:
        click.echo(_line(issue))
    if not data["issues"]:
        filtered = any(value for value in (status, priority, label, query))
        click.echo("no issues match" if filtered else "no issues yet (`hangar issue create TITLE`)")


@issue_group.command("show")
@click.argument("key")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def show_command(key: str, as_json: bool) -> None:
    """Show issue KEY with its child issues and its comments (with their ids, for
    `hangar issue comment KEY BODY --reply-to ID`)."""
    path = issue_path(key)  # a bad key is a usage error before any connection
    with HubClient.from_environment() as hub:
        issue = hub.get(path)
        comments = hub.get(f"{path}/comments")["comments"]
        children = [
            i for i in hub.get("/api/issues")["issues"] if i.get("parentKey") == issue["key"]
        ]
    if as_json:
        _print_json({**issue, "comments": comments, "children": children})
        return
    click.echo(_line(issue))
    if issue.get("parentKey"):
        click.echo(f"parent: {issue['parentKey']}")
    if issue.get("description"):
        click.echo("")
        click.echo(issue["description"])
    if children:
        click.echo(f"\nchild issues ({len(children)}):")
        for child in sorted(children, key=lambda c: int(c.get("number") or 0)):
            click.echo("  " + _line(child))
    if not comments:
        click.echo("\nno comments yet")
    depth: dict[str, int] = {}
    for comment in comments:
        level = depth[comment["parentId"]] + 1 if comment.get("parentId") in depth else 0
        depth[comment["id"]] = level
        indent = "  " * level
        author = comment.get("authorName") or "?"
        click.echo(f"\n{indent}— {author}, {comment['createdAt']}  (id {comment['id']})")
        for text in comment["body"].splitlines():
            click.echo(f"{indent}  {text}")


def _patch(key: str, body: dict[str, Any], as_json: bool) -> None:
    path = issue_path(key)
    with HubClient.from_environment() as hub:
        issue = hub.patch(path, body)
    if as_json:
        _print_json(issue)
    else:
        click.echo(_line(issue))


@issue_group.command("edit")
@click.argument("key")
@click.option("--title", default=None)
@click.option("-d", "--description", default=None, help="Markdown description ('-' reads stdin).")
@click.option("--priority", type=click.Choice(PRIORITIES, case_sensitive=False), default=None)
@click.option("-l", "--label", "labels", multiple=True, help="Replace the labels (repeatable).")
@click.option("--no-labels", is_flag=True, help="Remove every label.")
@click.option("--parent", "parent_key", default=None, help="Parent issue key; '' removes it.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def edit_command(
    key: str,
    title: str | None,
    description: str | None,
    priority: str | None,
    labels: tuple[str, ...],
    no_labels: bool,
    parent_key: str | None,
    as_json: bool,
) -> None:
    """Change the title, description, priority, labels or parent of issue KEY."""
    issue_path(key)
    body: dict[str, Any] = {}
    for name, value in (
        ("title", title),
        ("description", _read_text(description)),
        ("priority", priority),
    ):
        if value is not None:
            body[name] = value
    if labels and no_labels:
        raise UsageError("give --label or --no-labels, not both")
    if labels or no_labels:
        body["labels"] = list(labels)
    if parent_key is not None:
        body["parentKey"] = parent_key.strip() or None
    if not body:
        raise UsageError("nothing to change: give --title, --description, --priority, …")
    _patch(key, body, as_json)


@issue_group.command("status")
@click.argument("key")
@click.argument("status", type=click.Choice(STATUSES, case_sensitive=False))
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def status_command(key: str, status: str, as_json: bool) -> None:
    """Set the status of issue KEY."""
    _patch(key, {"status": status.lower()}, as_json)


@issue_group.command("close")
@click.argument("key")
@click.option("--cancel", is_flag=True, help="Close as cancelled rather than done.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def close_command(key: str, cancel: bool, as_json: bool) -> None:
    """Close issue KEY as done (or cancelled)."""
    _patch(key, {"status": "cancelled" if cancel else "done"}, as_json)


@issue_group.command("comment")
@click.argument("key")
@click.argument("body")
@click.option("--reply-to", "parent_id", default=None, help="Id of the comment to answer.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def comment_command(key: str, body: str, parent_id: str | None, as_json: bool) -> None:
    """Add comment BODY ('-' reads stdin) to issue KEY."""
    payload: dict[str, Any] = {"body": _read_text(body)}
    if parent_id:
        payload["parentId"] = parent_id
    path = issue_path(key, "comments")
    with HubClient.from_environment() as hub:
        comment = hub.post(path, payload)
    if as_json:
        _print_json(comment)
    else:
        click.echo(comment["id"])
