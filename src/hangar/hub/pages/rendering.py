"""Jinja2 environment of the web UI and the safe Markdown renderer.

Autoescaping is on for every template. Markdown goes through markdown-it-py with raw HTML
disabled (``<script>`` in an issue becomes text) and its link validation (no ``javascript:``);
GFM tables, strikethrough and task lists (read-only checkboxes) are on.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup
from mdit_py_plugins.tasklists import tasklists_plugin

from hangar.agents.registry import agent
from hangar.presentation.diffs import file_view
from hangar.presentation.images import DATA_IMAGE_PREFIXES, attachment_views
from hangar.presentation.references import tagged_markdown
from hangar.presentation.tool_view import tool_view

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


@cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    # GFM task lists ("- [ ] step") as read-only checkboxes, each inside its item's label.
    md.use(tasklists_plugin, enabled=False, label=True)
    return md


def render_markdown(text: str | None) -> Markup:
    """HTML for untrusted Markdown: raw HTML is escaped, unsafe links are dropped."""
    return Markup(_markdown().render(text or ""))


def relative_time(value: str | None, now: datetime | None = None) -> str:
    """``"5m ago"``-style text for an ISO time; the raw value when it cannot be parsed."""
    if not value:
        return ""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = int(((now or datetime.now(UTC)) - moment).total_seconds())
    if seconds < 60:
        return "just now"
    for size, unit in ((86400 * 365, "y"), (86400 * 30, "mo"), (86400, "d"), (3600, "h")):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds // 60}m ago"


def absolute_time(value: str | None) -> str:
    """``2026-11-20 09:44:10 UTC`` for an ISO time (a tooltip beside a relative time)."""
    if not value:
        return ""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def pretty_json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def tool_command(block: dict[str, Any]) -> str:
    """The command line a shell tool ran, else a one-line summary of its input."""
    data = block.get("input")
    if isinstance(data, dict):
        for key in ("command", "cmd", "file_path", "path", "pattern", "query", "url"):
            value = data.get(key)
            if isinstance(value, list):
                return " ".join(str(v) for v in value)
            if isinstance(value, str) and value:
                return value
    if isinstance(data, str):
        return data.splitlines()[0] if data else ""
    return ""


def safe_image_src(block: dict[str, Any]) -> str | None:
    payload = block.get("renderPayload")
    if isinstance(payload, str) and payload.startswith(DATA_IMAGE_PREFIXES):
        return payload
    return None


def total(items: Any, key: str) -> int:
    """Sum of ``item[key]`` over dicts where a missing key counts 0 (defaults are omitted)."""
    return sum(int(i.get(key) or 0) for i in items or () if isinstance(i, dict))


def runtime_badge(runtime: str | None) -> str:
    """The agent's badge from its registry record; an unknown runtime shows its first two
    letters."""
    name = runtime or "?"
    record = agent(name)
    return record.badge if record is not None else name[:2].title()


def runtime_name(runtime: str | None) -> str:
    """The agent's display name from its registry record (the runtime id when unknown)."""
    record = agent(runtime or "")
    return record.display_name if record is not None else (runtime or "?")


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["markdown"] = render_markdown
    env.filters["ago"] = relative_time
    env.filters["absolute"] = absolute_time
    env.filters["pretty"] = pretty_json
    env.filters["badge"] = runtime_badge
    env.filters["agent_name"] = runtime_name
    env.filters["total"] = total
    env.globals["tool_command"] = tool_command
    env.globals["tool_view"] = tool_view
    env.globals["file_view"] = file_view
    env.globals["safe_image_src"] = safe_image_src
    env.globals["attachment_views"] = attachment_views
    env.globals["tagged_markdown"] = lambda m: tagged_markdown(m, render_markdown)
    return env


def render(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
