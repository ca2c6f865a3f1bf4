"""``hangar issue create|list|show|comment``: the issue tracker from the terminal, over HTTP."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from hangar.hub_client import HubClient


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _line(issue: dict[str, Any]) -> str:
    labels = f"  [{', '.join(issue['labels'])}]" if issue.get("labels") else ""
    return (
        f"{issue['key']:<9} {issue['status']:<12} {issue['priority']:<7} {issue['title']}{labels}"
    )


@click.group("issue")
def issue_group() -> None:
    """Create, list, show and comment on issues of the hub."""


@issue_group.command("create")
@click.argument("title")
@click.option("-d", "--description", default=None, help="Markdown description ('-' reads stdin).")
@click.option("--status", default=None, help="backlog|todo|in_progress|in_review|done|cancelled")
@click.option("--priority", default=None, help="none|urgent|high|medium|low")
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
    if description == "-":
        description = sys.stdin.read()
    body: dict[str, Any] = {"title": title}
    for key, value in (
        ("description", description),
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


@issue_group.command("show")
@click.argument("key")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def show_command(key: str, as_json: bool) -> None:
    """Show issue KEY with its comments."""
    with HubClient.from_environment() as hub:
        issue = hub.get(f"/api/issues/{key}")
        comments = hub.get(f"/api/issues/{key}/comments")["comments"]
    if as_json:
        _print_json({**issue, "comments": comments})
        return
    click.echo(_line(issue))
    if issue.get("description"):
        click.echo("")
        click.echo(issue["description"])
    depth: dict[str, int] = {}
    for comment in comments:
        level = depth[comment["parentId"]] + 1 if comment.get("parentId") in depth else 0
        depth[comment["id"]] = level
        indent = "  " * level
        click.echo(f"\n{indent}— {comment.get('authorName') or '?'}, {comment['createdAt']}")
        for text in comment["body"].splitlines():
            click.echo(f"{indent}  {text}")


@issue_group.command("comment")
@click.argument("key")
@click.argument("body")
@click.option("--reply-to", "parent_id", default=None, help="Id of the comment to answer.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def comment_command(key: str, body: str, parent_id: str | None, as_json: bool) -> None:
    """Add comment BODY ('-' reads stdin) to issue KEY."""
    if body == "-":
        body = sys.stdin.read()
    payload: dict[str, Any] = {"body": body}
    if parent_id:
        payload["parentId"] = parent_id
    with HubClient.from_environment() as hub:
        comment = hub.post(f"/api/issues/{key}/comments", payload)
    if as_json:
        _print_json(comment)
    else:
        click.echo(comment["id"])
