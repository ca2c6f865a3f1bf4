"""Codex CLI (``openai/codex``): the store facet.

Sessions are rollout JSONL files under ``$CODEX_HOME`` (append-only; see
:mod:`~hangar.agents.codex.discovery` and :mod:`~hangar.agents.codex.projector`). The
``runtimeHandle`` is ``{"threadId": …}``. A fork's transcript starts with its parent's
history through the fork point (:mod:`~hangar.agents.codex.forks`). Checklists come from
``update_plan`` calls (source ``codex.update_plan``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from hangar.agents.base import AgentStore, SessionSource, TranscriptProjector
from hangar.agents.codex.discovery import describe_rollout, read_thread_names, rollout_paths
from hangar.agents.codex.forks import forked_history
from hangar.agents.codex.projector import CodexProjector, read_child
from hangar.agents.codex.subagents import find_rollout
from hangar.model import Message


class CodexStore(AgentStore):
    runtime = "codex"
    append_only = True

    _names: dict[str, str]
    _names_stat: tuple[int, int] | None = None

    def session_paths(self) -> Iterator[Path]:
        return rollout_paths(self.home.root)

    def describe(self, path: Path) -> SessionSource | None:
        source = describe_rollout(path, self.home.root)
        title = self.session_titles().get(source.session_id)
        if title:
            from dataclasses import replace

            source = replace(source, title=title)
        return source

    def discover(self) -> Iterator[SessionSource]:
        for path in self.session_paths():
            try:
                source = self.describe(path)
            except OSError:
                continue
            if source is not None:
                yield source

    def session_titles(self) -> Mapping[str, str]:
        index = self.home.root / "session_index.jsonl"
        try:
            st = index.stat()
        except OSError:
            return {}
        key = (st.st_size, st.st_mtime_ns)
        if key != self._names_stat:
            self._names = read_thread_names(index)
            self._names_stat = key
        return self._names

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        home, parent = self.home.root, source.path

        def load_child(thread_id: str) -> list[Message] | None:
            path = find_rollout(home, parent, thread_id)
            if path is None or path == parent:
                return None
            try:
                return read_child(path)
            except OSError:
                return None

        def load_parent(thread_id: str, before: int) -> Iterator[bytes]:
            return forked_history(lambda t: find_rollout(home, parent, t), thread_id, before)

        return CodexProjector(source.session_id, load_child, load_parent)
