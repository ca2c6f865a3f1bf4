"""Blank projects registered on this device (RW-294..296): directories created for a new
project, kept in ``$HANGAR_HOME/projects.json`` so they list as projects before any task ran
in them. Nothing about them is written to the hub."""

from __future__ import annotations

import json
from pathlib import Path

FILE_NAME = "projects.json"


def registered_projects(home: Path) -> list[str]:
    """The registered directories that still exist, in registration order."""
    try:
        data = json.loads((home / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    paths = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(paths, list):
        return []
    return [p for p in paths if isinstance(p, str) and Path(p).is_dir()]


def register_project(home: Path, path: Path) -> None:
    """Add ``path`` (written whole, through a temporary file)."""
    known = [p for p in registered_projects(home) if p != str(path)]
    home.mkdir(parents=True, exist_ok=True)
    temporary = home / (FILE_NAME + ".tmp")
    temporary.write_text(json.dumps({"projects": [*known, str(path)]}), encoding="utf-8")
    temporary.replace(home / FILE_NAME)
