"""Codex tool records → normalized blocks: arguments, outputs, patches.

Checklists (``update_plan``) go through :mod:`hangar.agents.checklists` and the rules of
:mod:`hangar.agents.checklist_rules`, like every other agent's.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from hangar.agents.json_fields import raw_value
from hangar.agents.text import content_text
from hangar.agents.tool_output import cap_output
from hangar.model import FileChange, FileChangesBlock, ToolBlock


def parse_arguments(raw: msgspec.Raw) -> Any:
    """Function-call arguments: a JSON string holding JSON (kept as text if it is not)."""
    value = raw_value(raw)
    if isinstance(value, str):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError:
            return value
    return value


def set_output(block: ToolBlock, value: Any, *, is_error: bool | None = None) -> None:
    text = content_text(value)
    shown, truncated = cap_output(text)
    block.output = shown
    block.truncated = truncated
    block.status = "failed" if is_error else "done"
    if is_error is not None:
        block.is_error = is_error


_EXIT_CODE = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")


def exit_code_error(output: str) -> bool | None:
    match = _EXIT_CODE.search(output[:2000])
    return None if match is None else match.group(1) != "0"


def duration_ms(value: Any) -> int | None:
    if isinstance(value, dict):
        secs, nanos = value.get("secs"), value.get("nanos", 0)
        if isinstance(secs, int) and isinstance(nanos, int):
            return secs * 1000 + nanos // 1_000_000
    if isinstance(value, int | float):
        return int(value)
    return None


_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")
_CHANGE_TYPE = {"Add": "add", "Update": "update", "Delete": "delete"}


def changes_from_patch(patch: str) -> list[FileChange]:
    """Files an ``apply_patch`` envelope touches, with +/- line counts."""
    files: list[FileChange] = []
    current: FileChange | None = None
    for line in patch.splitlines():
        match = _PATCH_FILE.match(line)
        if match:
            change_type = _CHANGE_TYPE[match.group(1)]
            current = FileChange(path=match.group(2).strip(), change_type=change_type)  # type: ignore[arg-type]
            files.append(current)
            continue
        if current is None:
            continue
        move = _PATCH_MOVE.match(line)
        if move:
            current.change_type = "move"
            current.move_path = move.group(1).strip()
        elif line.startswith("+") and not line.startswith("+++"):
            current.additions += 1
        elif line.startswith("-") and not line.startswith("---"):
            current.deletions += 1
    return files


def changes_from_event(changes: Any) -> list[FileChange]:
    """``patch_apply_end.changes`` ``{path: {type, unified_diff, move_path}}`` → files."""
    files: list[FileChange] = []
    if not isinstance(changes, dict):
        return files
    for path, change in changes.items():
        if not isinstance(change, dict):
            continue
        kind = str(change.get("type", "update"))
        diff = change.get("unified_diff") if isinstance(change.get("unified_diff"), str) else None
        content = change.get("content") if isinstance(change.get("content"), str) else None
        additions = deletions = 0
        if diff:
            for line in diff.splitlines():
                if line.startswith("+") and not line.startswith("+++"):
                    additions += 1
                elif line.startswith("-") and not line.startswith("---"):
                    deletions += 1
        elif content is not None:
            count = len(content.splitlines())
            additions, deletions = (count, 0) if kind == "add" else (0, count)
            if kind in ("add", "delete"):
                diff = whole_file_diff(content, added=kind == "add")
        move = change.get("move_path")
        files.append(
            FileChange(
                path=str(path),
                change_type="move" if move else kind if kind in _CHANGE_TYPE.values() else "update",  # type: ignore[arg-type]
                additions=additions,
                deletions=deletions,
                move_path=move if isinstance(move, str) else None,
                diff=diff,
            )
        )
    return files


def whole_file_diff(content: str, *, added: bool) -> str:
    """The unified-diff hunk of a file created (``added``) or deleted with ``content``."""
    parts = content.split("\n")  # only newlines end lines in a diff, not \r or \f
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    if not lines:
        return ""
    sign = "+" if added else "-"
    span = f"-0,0 +1,{len(lines)}" if added else f"-1,{len(lines)} +0,0"
    body = "".join(sign + line for line in lines)
    if not body.endswith("\n"):
        body += "\n\\ No newline at end of file\n"
    return f"@@ {span} @@\n{body}"


def file_changes_block(files: list[FileChange], call_id: str | None) -> FileChangesBlock:
    return FileChangesBlock(files=files, tool_use_id=call_id)
