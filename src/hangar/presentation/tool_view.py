"""A tool call as a person reads it: the command it ran, its other arguments as short
key/value pairs, its output without the agent's bookkeeping, the files it changed.

Works on the JSON form of :class:`hangar.model.ToolBlock` (what the pages and exports get).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from hangar.presentation.diffs import FileView, file_views
from hangar.presentation.paths import short_path

_COMMAND_KEYS = ("command", "cmd")
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "pwsh", "powershell"})
_FIELD_CHARS = 120

_CODEX_HEADER = re.compile(
    r"(?:Chunk ID|Wall time|Process exited with code|Process running with session ID"
    r"|Original token count|Total output lines)\b[^\n]*\n"
)
_EXIT = re.compile(r"Process exited with code (-?\d+)")


@dataclass(frozen=True)
class ToolView:
    name: str
    command: str | None = None
    """A shell command with its real line breaks."""
    summary: str = ""
    """One line for the call's header (the command's first line, a path, a query)."""
    fields: list[tuple[str, str]] = field(default_factory=list)
    """The other arguments, each value on one line and shortened."""
    raw_input: str | None = None
    """The arguments as recorded, pretty JSON (one click away in the UI)."""
    output: str | None = None
    exit_code: int | None = None
    files: list[FileView] = field(default_factory=list)


def shell_command(data: Any) -> str | None:
    """The command a shell tool ran: a string as written, ``["bash", "-lc", cmd]`` as ``cmd``,
    another argv joined with spaces."""
    if not isinstance(data, dict):
        return None
    for key in _COMMAND_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-c", "-lc", "-l"):
                return str(value[-1])
            return " ".join(value)
    return None


def clean_output(text: str | None) -> tuple[str | None, int | None]:
    """The output without Codex's header (``Chunk ID``, ``Wall time``, ``Original token
    count``, ``Output:``) or its older ``{"output", "metadata"}`` wrapper; and the exit code
    the header or wrapper recorded."""
    if text is None:
        return None, None
    stripped = text.lstrip()
    if stripped.startswith("{") and '"output"' in stripped[:200]:
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("output"), str):
            meta = data.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return data["output"], code if isinstance(code, int) else None
    exit_code: int | None = None
    position = 0
    while True:
        header = _CODEX_HEADER.match(text, position)
        if header is None:
            break
        found = _EXIT.match(header.group(0))
        if found:
            exit_code = int(found.group(1))
        position = header.end()
    if position and text.startswith("Output:", position):
        position += len("Output:")
        position += 1 if text.startswith("\n", position) else 0
        return text[position:], exit_code
    return (text[position:], exit_code) if position else (text, None)


def _one_line(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= _FIELD_CHARS else text[: _FIELD_CHARS - 1] + "…"


def tool_view(block: dict[str, Any], cwd: str | None = None) -> ToolView:
    data = block.get("input")
    name = str(block.get("name") or "tool")
    command = shell_command(data) if block.get("kind") in (None, "shell") else None
    fields: list[tuple[str, str]] = []
    summary = ""
    if isinstance(data, dict):
        for key, value in data.items():
            if command is not None and key in _COMMAND_KEYS:
                continue
            if value in (None, "", [], {}):
                continue  # no empty chips
            shown = short_path(value, cwd) if isinstance(value, str) and "path" in key else value
            fields.append((str(key), _one_line(shown)))
        if command is None:
            for key in ("file_path", "path", "filePath", "pattern", "query", "url", "description"):
                value = data.get(key)
                if isinstance(value, str) and value:
                    summary = short_path(value, cwd) if "ath" in key else value
                    break
    elif isinstance(data, str) and data:
        summary = data.splitlines()[0]
    if command is not None:
        summary = command.splitlines()[0] if command else ""
    output, exit_code = clean_output(block.get("output"))
    raw = None
    if data is not None:
        raw = data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False)
    return ToolView(
        name=name,
        command=command,
        summary=summary,
        fields=fields,
        raw_input=raw,
        output=output,
        exit_code=exit_code,
        files=file_views(name, data, cwd),
    )
