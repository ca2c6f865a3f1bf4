"""Codex sub-agents (multi-agent "collab" tools): child threads shown inside the parent.

A parent rollout records ``collab_agent_spawn_end {call_id, new_thread_id, prompt,
new_agent_nickname}`` for the tool call that started a child thread, and later
``collab_waiting_end`` / ``collab_close_end`` / ``collab_agent_interaction_end`` naming it.
The child's own rollout (``session_meta.parent_thread_id`` set; never listed as a task) is
read into ``ToolBlock.children`` of the spawning call, again at each later event so the
block shows the child's progress (:func:`hangar.agents.codex.projector.read_child`). A
child's checklist stays in the child (CL-064).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hangar.model import Message

ChildLoader = Callable[[str], list[Message] | None]


def referenced_threads(event: Any) -> Iterator[str]:
    """Thread ids a ``collab_*_end`` event (an ``EventMsg``) names."""
    for value in (event.new_thread_id, event.receiver_thread_id):
        if isinstance(value, str) and value:
            yield value
    statuses = event.agent_statuses if isinstance(event.agent_statuses, list) else []
    for status in statuses:
        if isinstance(status, dict) and isinstance(status.get("thread_id"), str):
            yield status["thread_id"]


def find_rollout(home: Path, near: Path, thread_id: str) -> Path | None:
    """The rollout of ``thread_id``: beside ``near`` first, then anywhere under the home."""
    pattern = f"rollout-*{thread_id}.jsonl"
    for candidate in sorted(near.parent.glob(pattern)):
        return candidate
    for folder, glob in (("sessions", f"*/*/*/{pattern}"), ("archived_sessions", pattern)):
        for candidate in sorted((home / folder).glob(glob)):
            return candidate
    return None
