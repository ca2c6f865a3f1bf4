"""File changes as a person reads them: a diff split into typed lines, counts taken from the
diff itself, and Claude's ``Write``/``Edit``/``MultiEdit`` calls shown as file changes."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Literal

from hangar.presentation.paths import short_path

LineKind = Literal["add", "del", "hunk", "meta", "context"]


@dataclass(frozen=True)
class DiffLine:
    kind: LineKind
    text: str


@dataclass(frozen=True)
class FileView:
    path: str
    """Relative to the task's directory when inside it."""
    full_path: str
    change_type: str = "update"
    additions: int = 0
    deletions: int = 0
    lines: list[DiffLine] = field(default_factory=list)


def diff_lines(diff: str | None) -> list[DiffLine]:
    lines: list[DiffLine] = []
    for text in (diff or "").splitlines():
        if text.startswith(("+++", "---", "diff ", "index ", "*** ")):
            lines.append(DiffLine("meta", text))
        elif text.startswith("@@"):
            lines.append(DiffLine("hunk", text))
        elif text.startswith("+"):
            lines.append(DiffLine("add", text))
        elif text.startswith("-"):
            lines.append(DiffLine("del", text))
        else:
            lines.append(DiffLine("context", text))
    return lines


def counts(lines: list[DiffLine]) -> tuple[int, int]:
    return sum(line.kind == "add" for line in lines), sum(line.kind == "del" for line in lines)


def file_view(change: dict[str, Any], cwd: str | None) -> FileView:
    """A ``FileChange`` (JSON form); ``+``/``−`` come from its diff when it has one (an agent's
    own counts can be missing, e.g. zero for a new file)."""
    full = str(change.get("path") or "")
    lines = diff_lines(change.get("diff"))
    additions, deletions = counts(lines)
    if not lines:
        additions = int(change.get("additions") or 0)
        deletions = int(change.get("deletions") or 0)
    return FileView(
        path=short_path(full, cwd),
        full_path=full,
        change_type=str(change.get("changeType") or "update"),
        additions=additions,
        deletions=deletions,
        lines=lines,
    )


def _unified(old: str, new: str) -> list[str]:
    return list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=2))[
        2:
    ]  # without the ---/+++ header: the path is shown apart


_WRITES = frozenset({"Write", "write"})
_EDITS = frozenset({"Edit", "edit"})


def _field(data: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = data.get(name)
        if isinstance(value, str):
            return value
    return None


def _edit_diff(edit: Any) -> list[str]:
    if not isinstance(edit, dict):
        return []
    old = _field(edit, "old_string", "oldString")
    new = _field(edit, "new_string", "newString")
    return _unified(old, new or "") if old is not None else []


def file_views(name: str, data: Any, cwd: str | None) -> list[FileView]:
    """The file a ``Write``/``Edit``/``MultiEdit`` call changed, from its input (Claude's
    ``file_path``/``old_string`` and OpenCode's ``filePath``/``oldString`` spellings)."""
    if not isinstance(data, dict):
        return []
    path = _field(data, "file_path", "filePath")
    if not path:
        return []
    content = _field(data, "content")
    if name in _WRITES and content is not None:
        text = ["+" + line for line in content.splitlines()]
        change_type = "write"  # a new file or a whole rewrite: the input does not say which
    elif name in _EDITS:
        text = _edit_diff(data)
        change_type = "update"
    elif name == "MultiEdit" and isinstance(data.get("edits"), list):
        text = [line for edit in data["edits"] for line in _edit_diff(edit)]
        change_type = "update"
    else:
        return []
    if not text:
        return []
    lines = diff_lines("\n".join(text))
    additions, deletions = counts(lines)
    return [FileView(short_path(path, cwd), path, change_type, additions, deletions, lines)]
