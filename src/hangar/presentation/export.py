"""A whole transcript as a file to keep or share: Markdown, or one self-contained HTML page
(no script, no outside resource). Secrets are redacted in both (:mod:`hangar.redaction`).

Input is the JSON shape of the transcript API (a task and its messages, oldest first), so the
CLI (reading this device) and the hub (reading any device) export the same way.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any, Literal

from hangar.presentation.diffs import file_view
from hangar.presentation.tool_view import tool_view
from hangar.redaction import redact_text

ExportFormat = Literal["md", "html"]
FORMATS: tuple[ExportFormat, ...] = ("md", "html")
MAX_MESSAGES = 200_000
"""A bound on what one export collects (a transcript that long is read in pages anyway)."""

PageFetcher = Callable[[str | None], dict[str, Any]]
"""Fetch one transcript page: ``None`` for the newest page, else a ``beforeCursor``."""


def collect_messages(fetch: PageFetcher) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The task and all its messages, oldest first, paging back from the newest page."""
    page = fetch(None)
    task = dict(page.get("task") or {})
    pages = [list(page.get("messages") or [])]
    count = len(pages[0])
    while page.get("hasMore") and page.get("beforeCursor") and count < MAX_MESSAGES:
        page = fetch(str(page["beforeCursor"]))
        older = list(page.get("messages") or [])
        if not older:
            break
        pages.append(older)
        count += len(older)
    messages = [m for chunk in reversed(pages) for m in chunk]
    return task, messages


def _fence(text: str, info: str = "") -> str:
    longest = max((len(run) for run in _backtick_runs(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _backtick_runs(text: str) -> Iterable[str]:
    run = ""
    for char in text:
        if char == "`":
            run += char
        elif run:
            yield run
            run = ""
    if run:
        yield run


def _tool_markdown(block: dict[str, Any], cwd: str | None) -> list[str]:
    view = tool_view(block, cwd)
    status = "error" if block.get("isError") else str(block.get("status") or "done")
    if view.exit_code is not None:
        status += f", exit {view.exit_code}"
    head = f"**{view.name}**" + (f" `{view.summary}`" if view.summary and not view.command else "")
    out = [f"{head} ({status})"]
    if view.command is not None:
        out.append(_fence(view.command, "sh"))
    for key, value in view.fields:
        out.append(f"- {key}: {value}")
    for change in view.files:
        out.append(f"`{change.path}` +{change.additions} −{change.deletions}")
        if change.lines:
            out.append(_fence("\n".join(line.text for line in change.lines), "diff"))
    if view.output:
        out.append(_fence(view.output))
    for child in block.get("children") or []:
        out.append("> " + "\n> ".join(_message_markdown(child, cwd).splitlines()))
    return out


def _block_markdown(block: dict[str, Any], cwd: str | None) -> list[str]:
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text") or "")]
    if kind == "thinking":
        text = str(block.get("text") or "(redacted)")
        return ["> *Thinking:* " + "\n> ".join(text.splitlines())]
    if kind == "tool":
        return _tool_markdown(block, cwd)
    if kind == "plan":
        return ["**Plan**", str(block.get("text") or "")]
    if kind == "checklist":
        marks = {"completed": "x", "in_progress": "~"}
        items = block.get("items") or []
        lines = [f"- [{marks.get(i.get('status'), ' ')}] {i.get('content', '')}" for i in items]
        return ["**Checklist**", "\n".join(lines)]
    if kind == "fileChanges":
        out: list[str] = []
        for change in block.get("files") or []:
            view = file_view(change, cwd)
            out.append(f"`{view.path}` {view.change_type} +{view.additions} −{view.deletions}")
            if view.lines:
                out.append(_fence("\n".join(line.text for line in view.lines), "diff"))
        return out
    if kind == "image":
        return [f"*(image{': ' + str(block['prompt']) if block.get('prompt') else ''})*"]
    if kind == "compaction":
        return ["*Context compacted.*"]
    return [f"*({block.get('recordType') or kind})*"]


def _message_markdown(message: dict[str, Any], cwd: str | None) -> str:
    who = "You" if message.get("role") == "user" else "Assistant"
    meta = [str(message[k]) for k in ("createdAt", "model") if message.get(k)]
    parts = [f"### {who}" + (f" · {' · '.join(meta)}" if meta else "")]
    blocks = message.get("blocks") or []
    if message.get("role") == "user" or not blocks:
        if message.get("content"):
            parts.append(str(message["content"]))
        for attachment in message.get("attachments") or []:
            parts.append(f"📎 {attachment.get('name', 'attachment')}")
    for block in blocks:
        parts += _block_markdown(block, cwd)
    if message.get("error"):
        parts.append(f"**Error:** {message['error']}")
    return "\n\n".join(p for p in parts if p)


def transcript_markdown(task: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    cwd = task.get("workspacePath") or None
    title = str(task.get("title") or "Untitled task")
    facts = [
        ("Agent", task.get("runtime")),
        ("Session", task.get("sessionId") or task.get("localTaskId")),
        ("Directory", cwd),
        ("Updated", task.get("updatedAt")),
    ]
    head = [f"# {title}", "\n".join(f"- {k}: {v}" for k, v in facts if v)]
    body = [_message_markdown(m, cwd) for m in messages]
    return redact_text("\n\n".join([*head, *body]) + "\n")


_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem;
  color: #1f2328; background: #fff; }
pre { background: #f6f8fa; padding: 8px; border-radius: 6px; overflow: auto;
  white-space: pre-wrap; word-break: break-word; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
h3 { border-top: 1px solid #d0d7de; padding-top: 1rem; font-size: 1rem; }
blockquote { color: #59636e; border-left: 3px solid #d0d7de; margin: 0; padding-left: 1rem; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0f1216; } pre { background: #161b22; }
  h3 { border-color: #30363d; } blockquote { color: #9198a1; border-color: #30363d; }
}
"""


def transcript_html(task: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    """One HTML page: the Markdown export rendered with raw HTML disabled, styles inline."""
    from markdown_it import MarkdownIt  # only exports render HTML here

    markdown = transcript_markdown(task, messages)
    renderer = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    title = html.escape(str(task.get("title") or "Untitled task"))
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{_STYLE}</style></head>\n<body>\n"
        f"{renderer.render(markdown)}</body></html>\n"
    )


def export_transcript(
    fmt: ExportFormat, task: dict[str, Any], messages: list[dict[str, Any]]
) -> str:
    return transcript_html(task, messages) if fmt == "html" else transcript_markdown(task, messages)


def export_filename(task: dict[str, Any], fmt: ExportFormat) -> str:
    title = str(task.get("title") or task.get("localTaskId") or "transcript")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in title.lower())[:60].strip("-")
    return f"{safe or 'transcript'}.{fmt}"
