"""Gemini CLI chat files as run messages (the reader of :mod:`.gemini`).

Which file: the chat of the session hangar names (``--session-id ID``, or the one you resume
with ``--resume ID``), ``<Gemini home>/tmp/<project>/chats/session-<time>-<ID[:8]>.jsonl``
whose metadata line carries ``sessionId: ID``; never "the newest file" (LR-172, LR-173). A
session resumed at the start of the run is read from the file's end; one the TUI switched to
(:mod:`.gemini`) from its start when it is new (``/clear``), else from the record
``{"$set": {"sessionId": ID}}`` Gemini appends when it resumes a session (``/resume``).

The file is projected with the transcript reader (:class:`hangar.agents.gemini.
GeminiJsonlProjector`: records replaced by id, ``$rewindTo``) and mapped by
:class:`~hangar.localrun.providers.chat_log.ChatLog` (shared with Qwen Code): user record →
``user_input`` (the user records Gemini writes for tool results carry no text and are not
input); model text → ``text``, the turn's last one ``final`` once the next prompt is written
or the CLI has ended (Gemini appends a turn's tool calls to the model record that announced
them and writes no end-of-turn record); tool calls → ``tool_use``/``tool_result`` with
Gemini's tool name (``run_shell_command``, …); error record → ``error``; model ``tokens`` →
usage. sourceKeys: ``gemini:session:SID:message:MID:…`` (see :mod:`.chat_log`).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from hangar.agents.gemini import GeminiJsonlProjector
from hangar.localrun.providers.chat_log import ChatLog, Mapped

SOURCE = "gemini-chat"
PROVIDER = "gemini"

__all__ = ["GeminiChat", "GeminiSessionFile", "Mapped"]


class GeminiChat(ChatLog):
    prefix, source, provider = "gemini", SOURCE, PROVIDER

    def __init__(
        self, session: str, path: Path, *, from_end: bool, from_resume: bool = False
    ) -> None:
        super().__init__(session, path, GeminiJsonlProjector(), from_end=from_end)
        if from_resume:
            self.offset = _after_last_resume(path)


class GeminiSessionFile:
    """The chat file of one named session: found by its id (the file name carries its first
    eight characters, the metadata line all of it), never as "the newest file"."""

    def __init__(
        self, chats_root: Path, session: str, *, from_end: bool, from_resume: bool = False
    ) -> None:
        self.root = chats_root
        self.session = session
        self.from_end = from_end
        self.from_resume = from_resume
        self.chat: GeminiChat | None = None

    @property
    def resumed(self) -> bool:
        """Whether reading starts after a resume record (0: the session is read whole)."""
        return self.chat is not None and self.chat.offset > 0

    def open(self) -> bool:
        """Whether the session's file is there (and now followed)."""
        if self.chat is None:
            path = self._find()
            if path is None:
                return False
            self.chat = GeminiChat(
                self.session, path, from_end=self.from_end, from_resume=self.from_resume
            )
        return True

    def _find(self) -> Path | None:
        for path in sorted(self.root.glob(f"*/chats/session-*-{self.session[:8]}.jsonl")):
            if _metadata_session(path) == self.session:
                return path
        return None

    def read(self, *, ended: bool = False) -> Mapped:
        out = Mapped()
        if not self.open():
            return out
        assert self.chat is not None
        self.chat.read(out)
        if ended:
            self.chat.end_turn(out)
        return out


def _after_last_resume(path: Path) -> int:
    """The offset after the last ``{"$set": {"sessionId": …}}`` record (Gemini appends one
    each time it resumes the session), or 0 for a session that was never resumed."""
    offset = after = 0
    try:
        with path.open("rb") as handle:
            for line in handle:
                offset += len(line)
                if b'"sessionId"' not in line or not line.startswith(b'{"$set"'):
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                change = record.get("$set") if isinstance(record, dict) else None
                if isinstance(change, dict) and "sessionId" in change:
                    after = offset
    except OSError:
        return 0
    return after


def _metadata(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 16)
        record = json.loads(first)
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _metadata_session(path: Path) -> str:
    return str(_metadata(path).get("sessionId") or "")


def started_before(path: Path, moment: float) -> bool:
    """Whether the chat's metadata says its session started before ``moment`` (epoch s)."""
    try:
        start = datetime.fromisoformat(str(_metadata(path).get("startTime")).replace("Z", "+00:00"))
    except ValueError:
        return False
    return start.timestamp() < moment
