"""Plain-text rendering of a checklist (the API shape) for the terminal.

Markers: ``☐`` pending, ``◐`` in progress, ``☑`` completed, ``✗`` cancelled. The list is
shown as the agent wrote it; nothing here changes an item's status (CL-060, CL-065).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MARKS = {"pending": "☐", "in_progress": "◐", "completed": "☑", "cancelled": "✗"}


def item_line(item: Mapping[str, Any]) -> str:
    mark = MARKS.get(str(item.get("status")), "☐")
    priority = item.get("priority")
    suffix = f"  ({priority})" if priority in ("high", "low") else ""
    return f"{mark} {item.get('content', '')}{suffix}"


def checklist_lines(checklist: Mapping[str, Any], indent: str = "  ") -> list[str]:
    """A heading with the done count, then one line per item; a cleared list says so."""
    items = checklist.get("items") or []
    source = checklist.get("source") or "checklist"
    if not items:
        return [f"Checklist ({source}): cleared"]
    done = sum(1 for item in items if item.get("status") == "completed")
    lines = [f"Checklist ({source}) {done}/{len(items)} done"]
    lines.extend(indent + item_line(item) for item in items)
    return lines
