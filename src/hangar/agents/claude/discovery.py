"""Finding Claude Code sessions: ``projects/<sanitized cwd>/<session>.jsonl``.

The folder name is lossy, so ``cwd`` comes from the lines. Files whose first chat line is a
sidechain (legacy ``agent-*.jsonl`` beside the sessions) are sub-agents: described as child
sessions, never listed as tasks. Titles from the tail (custom > ai > summary), else the
first prompt in the head. A last request that ended in an API error shows as ``failed`` from
the tail alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec

from hangar.agents.base import SessionSource
from hangar.agents.claude import records as r
from hangar.agents.claude.prompts import user_content
from hangar.agents.json_fields import text_or_none
from hangar.agents.peek import head_lines, tail_lines
from hangar.agents.session_folders import files_below
from hangar.agents.timestamps import iso_from_seconds


def session_paths(home: Path) -> Iterator[Path]:
    return files_below(home / "projects", 1, _is_session_name)


def _is_session_name(name: str) -> bool:
    return name.endswith(".jsonl")


def _peek(line: bytes) -> r.Peek | None:
    try:
        return r.PEEK.decode(line)
    except msgspec.DecodeError:
        return None


def _has_text(message: r.LooseApiMessage | None) -> bool:
    content = message.content if message is not None else None
    if isinstance(content, str):
        return bool(content.strip())
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "text" and block.get("text")
        for block in content
    )


def _is_prompt(peek: r.Peek) -> bool:
    """A user line that starts a request (not a tool result, not injected meta text)."""
    if peek.type != "user" or peek.is_meta is True:
        return False
    content = peek.message.content if peek.message is not None else None
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") != "tool_result" for block in content
    )


def tail_status(peeks_newest_first: list[r.Peek]) -> str | None:
    """``failed`` when the last request ended in an API error with no reply text (what a full
    read says, see :meth:`ClaudeTurn.status`); ``None`` when the tail cannot tell."""
    chat = [
        p
        for p in peeks_newest_first
        if p.type in ("user", "assistant") and p.is_sidechain is not True
    ]
    if not chat or chat[0].type != "assistant" or chat[0].is_api_error_message is not True:
        return None
    for peek in chat[1:]:
        if _is_prompt(peek):
            return "failed"
        if peek.type == "assistant" and _has_text(peek.message):
            return None
    return None  # the request's start is beyond the tail


def describe_session(path: Path) -> SessionSource:
    cwd = created = first_prompt = model = None
    sidechain: bool | None = None
    parent: str | None = None
    for line in head_lines(path):
        peek = _peek(line)
        if peek is None:
            continue
        created = created or text_or_none(peek.timestamp)
        cwd = cwd or text_or_none(peek.cwd)
        if peek.type in ("user", "assistant") and sidechain is None:
            sidechain = peek.is_sidechain is True
            parent = text_or_none(peek.session_id)
        if first_prompt is None and peek.type == "user" and peek.is_meta is not True:
            content = peek.message.content if peek.message else None
            first_prompt = user_content(content)[0]
        if cwd and first_prompt and sidechain is not None:
            break
    titles: dict[str, str] = {}
    updated = None
    peeks: list[r.Peek] = []
    for line in reversed(tail_lines(path)):
        peek = _peek(line)
        if peek is None:
            continue
        peeks.append(peek)
        updated = updated or text_or_none(peek.timestamp)
        if model is None and peek.type == "assistant" and peek.message is not None:
            candidate = text_or_none(peek.message.model)
            model = candidate if candidate != "<synthetic>" else None
        for kind, value in (
            ("custom-title", peek.custom_title),
            ("ai-title", peek.ai_title),
            ("summary", peek.summary if peek.type == "summary" else None),
        ):
            if isinstance(value, str) and value.strip() and kind not in titles:
                titles[kind] = value.strip()
    title = titles.get("custom-title") or titles.get("ai-title") or titles.get("summary")
    if title is None and first_prompt:
        title = first_prompt.splitlines()[0][:120]
    session_id = path.stem
    is_child = bool(sidechain) or path.name.startswith("agent-")
    return SessionSource(
        runtime="claude",
        session_id=session_id,
        path=path,
        runtime_handle={"sessionId": session_id},
        title=title,
        workspace_path=cwd,
        created_at=created,
        updated_at=updated or iso_from_seconds(path.stat().st_mtime),
        model=model,
        parent_session_id=(parent or "unknown") if is_child else None,
        status=tail_status(peeks),
    )


def child_path(session_path: Path, agent_id: str) -> Path | None:
    """The transcript of sub-agent ``agent_id`` of a session, new layout first."""
    for candidate in (
        session_path.with_suffix("") / "subagents" / f"agent-{agent_id}.jsonl",
        session_path.parent / f"agent-{agent_id}.jsonl",
    ):
        if candidate.is_file():
            return candidate
    return None
