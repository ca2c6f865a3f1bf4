"""Claude Code (``anthropics/claude-code``): the store facet.

Sessions are append-only JSONL files under ``$CLAUDE_CONFIG_DIR/projects`` (see
:mod:`~hangar.agents.claude.discovery` and :mod:`~hangar.agents.claude.projector`). The
``runtimeHandle`` is ``{"sessionId": …}``. Sub-agent transcripts are read into the tool call
that started them. Checklists come from ``TodoWrite`` (source ``claude.TodoWrite``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hangar.agents.base import AgentStore, SessionSource, TranscriptProjector
from hangar.agents.claude.discovery import child_path, describe_session, session_paths
from hangar.agents.claude.projector import ClaudeProjector, read_child
from hangar.model import Message


class ClaudeStore(AgentStore):
    runtime = "claude"
    append_only = True

    def session_paths(self) -> Iterator[Path]:
        return session_paths(self.home.root)

    def describe(self, path: Path) -> SessionSource | None:
        return describe_session(path)

    def discover(self) -> Iterator[SessionSource]:
        for path in self.session_paths():
            try:
                yield describe_session(path)
            except OSError:
                continue

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        session_path = source.path

        def load_child(agent_id: str, tool_input: Any) -> list[Message] | None:
            path = child_path(session_path, agent_id)
            if path is None:
                return None
            try:
                return read_child(path)
            except OSError:
                return None

        return ClaudeProjector(load_child=load_child)
