"""Gemini CLI chat files as run messages (the reader of :mod:`.gemini`).

Which file: the chat of the session hangar names (``--session-id ID``, or the one you resume
with ``--resume ID``), ``<Gemini home>/tmp/<project>/chats/session-<time>-<ID[:8]>.jsonl``
whose metadata line carries ``sessionId: ID``; never "the newest file" (LR-172, LR-173). A
resumed session is read from the file's end at the start of the run.

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
from pathlib import Path

from hangar.agents.gemini import GeminiJsonlProjector
from hangar.localrun.providers.chat_log import ChatLog, Mapped

SOURCE = "gemini-chat"
PROVIDER = "gemini"

__all__ = ["GeminiChat", "GeminiSessionFile", "Mapped"]


class GeminiChat(ChatLog):
    prefix, source, provider = "gemini", SOURCE, PROVIDER

    def __init__(self, session: str, path: Path, *, from_end: bool) -> None:
        super().__init__(session, path, GeminiJsonlProjector(), from_end=from_end)


class GeminiSessionFile:
    """The chat file of one named session: found by its id (the file name carries its first
    eight characters, the metadata line all of it), never as "the newest file"."""

    def __init__(self, chats_root: Path, session: str, *, from_end: bool) -> None:
        self.root = chats_root
        self.session = session
        self.from_end = from_end
        self.chat: GeminiChat | None = None

    def _find(self) -> Path | None:
        for path in sorted(self.root.glob(f"*/chats/session-*-{self.session[:8]}.jsonl")):
            if _metadata_session(path) == self.session:
                return path
        return None

    def read(self, *, ended: bool = False) -> Mapped:
        out = Mapped()
        if self.chat is None:
            path = self._find()
            if path is None:
                return out
            self.chat = GeminiChat(self.session, path, from_end=self.from_end)
        self.chat.read(out)
        if ended:
            self.chat.end_turn(out)
        return out


def _metadata_session(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 16)
        record = json.loads(first)
    except (OSError, ValueError):
        return ""
    return str(record.get("sessionId") or "") if isinstance(record, dict) else ""
