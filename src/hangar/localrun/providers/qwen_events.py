"""Qwen Code chat files as run messages, following the run's own process across sessions
(the reader of :mod:`.qwen`).

Which files: the chat of the session hangar names (``--session-id ID``, or the one you resume
with ``--resume ID``), ``<runtime folder>/projects/<project>/chats/ID.jsonl``; never "the
newest file" (LR-172, LR-173). Qwen Code (0.24) also keeps a record per live process,
``<Qwen home>/sessions/PID.json`` (``pid``, ``sessionId``), which it rewrites when that process
moves to another session (``/clear``, ``/resume``) and removes at its end. Once the record
naming the first session belongs to the run's process (its pid, or a descendant's), a new
``sessionId`` there is a session switch: the turn of the session left is over (its last
reply becomes ``final``) and the new session's chat is followed; of a chat written before (a
resumed session) only the records stamped after the record's rewrite are reported. A Qwen in
another terminal has another pid and other sessions, so neither its record nor its chats are
ever read.

Records are projected with the transcript reader (:class:`hangar.agents.qwen.QwenProjector`)
and mapped by :class:`~hangar.localrun.providers.chat_log.ChatLog`: ``user`` → ``user_input``;
model text → ``text``/``final``; ``functionCall`` and ``tool_result`` → ``tool_use``/
``tool_result`` with Qwen's tool name (``run_shell_command``, …); ``usageMetadata`` → usage.
Two records the transcript reader skips are read here: ``system``/``slash_command`` with
``phase: invocation`` (what the user typed, ``rawCommand``: bare, nothing; with arguments,
``command``) and ``system``/``ui_telemetry`` ``qwen-code.api_error`` (``error``).
sourceKeys: ``qwen:session:SID:message:MID:…`` (see :mod:`.chat_log`; MID is the record's
``uuid``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hangar.agents.json_fields import as_map, as_str
from hangar.agents.json_records import SkipCounter
from hangar.agents.qwen import QwenProjector, decode_objects
from hangar.localrun.providers.chat_log import ChatLog, Mapped

__all__ = ["Mapped", "QwenChat", "QwenSessions"]

SOURCE = "qwen-chat"
PROVIDER = "qwen"
_SKIPPED_BY_PROJECTOR = (b'"slash_command"', b'"qwen-code.api_error"')
_MAX_ANCESTRY = 64


class QwenChat(ChatLog):
    """One Qwen chat; with ``since`` (a time), the records written before it are the
    session's past: projected (the transcript reader needs them) but not reported."""

    prefix, source, provider = "qwen", SOURCE, PROVIDER

    def __init__(
        self, session: str, path: Path, *, from_end: bool, since: datetime | None = None
    ) -> None:
        super().__init__(session, path, QwenProjector(), from_end=from_end)
        self.skipped = SkipCounter()
        self.since = since

    def line(self, line: bytes, out: Mapped) -> None:
        if self.since is not None:
            if _written_before(line, self.since):
                self.projector.feed(line)
                return
            self._past_projected()
        if not any(marker in line for marker in _SKIPPED_BY_PROJECTOR):
            self.projector.feed(line)
            return
        for record in decode_objects(line, self.skipped):
            self.projector.feed(json.dumps(record).encode())
            self.map_projected(out)  # what came before it, in order
            self._system(record, out)

    def map_projected(self, out: Mapped) -> None:
        if self.since is not None:
            self._past_projected()
        super().map_projected(out)

    def _past_projected(self) -> None:
        """Mark what was projected so far as reported: the session's past."""
        self.since = None
        super().map_projected(Mapped())
        if self.pending is not None:  # its reply, reported in its time (or never: not now)
            self.sent.add(self._key(self.pending[0], "text"))
        self.pending, self.commentable, self.turn_key = None, False, ""

    def _system(self, record: Mapping[str, Any], out: Mapped) -> None:
        if record.get("type") != "system":
            return
        uuid = as_str(record.get("uuid")) or ""
        payload = as_map(record.get("systemPayload"))
        subtype = record.get("subtype")
        if subtype == "slash_command" and payload.get("phase") == "invocation":
            typed = (as_str(payload.get("rawCommand")) or "").strip()
            if uuid and typed:
                self.prompt(uuid, typed, out, command=True)
        elif subtype == "ui_telemetry":
            event = as_map(payload.get("uiEvent"))
            if uuid and event.get("event.name") == "qwen-code.api_error":
                self.error(uuid, as_str(event.get("error_message")) or "API error", out)


class QwenSessions:
    """The chats of the sessions one Qwen process goes through (see the module docstring)."""

    def __init__(self, runtime: Path, home: Path, session: str, *, from_end: bool) -> None:
        self.projects = runtime / "projects"
        self.registry = home / "sessions"
        self.session = session
        self.from_end = from_end
        self.since: datetime | None = None
        self.chat: QwenChat | None = None
        self.pid = 0
        self.record: Path | None = None
        """The run's process record, once found (it names the current session)."""
        self.record_pid = 0

    def started(self, pid: int) -> None:
        self.pid = pid

    def read(self, *, ended: bool = False) -> Mapped:
        out = Mapped()
        now, when = self._current_session()
        if now and now != self.session:
            self._read_chat(out)
            if self.chat is not None:
                self.chat.end_turn(out)  # the session left: its turn is over
            self.session, self.chat, self.from_end, self.since = now, None, False, when
        self._read_chat(out)
        if ended and self.chat is not None:
            self.chat.end_turn(out)
        return out

    def _read_chat(self, out: Mapped) -> None:
        if self.chat is None:
            path = next(iter(sorted(self.projects.glob(f"*/chats/{self.session}.jsonl"))), None)
            if path is None:
                return
            self.chat = QwenChat(self.session, path, from_end=self.from_end, since=self.since)
        self.chat.read(out)

    def _current_session(self) -> tuple[str, datetime | None]:
        """The session the run's process is in, per its record ('' until it is known), and
        when the record was written (a switch: the records of that session written before it
        are its past, a resumed session's)."""
        if self.record is None:
            self.record = self._find_record()
            if self.record is None:
                return "", None
        try:
            written = datetime.fromtimestamp(self.record.stat().st_mtime, UTC)
        except OSError:
            return "", None
        record = _read_json(self.record)
        if record.get("pid") != self.record_pid:
            return "", None  # gone (the process ended) or another process's now
        return as_str(record.get("sessionId")) or "", written

    def _find_record(self) -> Path | None:
        if not self.pid or not self.registry.is_dir():
            return None
        for path in sorted(self.registry.glob("*.json")):
            record = _read_json(path)
            pid = record.get("pid")
            if (
                record.get("sessionId") == self.session
                and isinstance(pid, int)
                and _descends_from(pid, self.pid)
            ):
                self.record_pid = pid
                return path
        return None


def _written_before(line: bytes, since: datetime) -> bool:
    records = decode_objects(line, SkipCounter())
    stamp = as_str(records[0].get("timestamp")) if records else None
    try:
        return stamp is not None and datetime.fromisoformat(stamp) < since
    except ValueError:
        return False


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _descends_from(pid: int, ancestor: int) -> bool:
    """True when ``pid`` is ``ancestor`` or one of its descendants (read from ``/proc``;
    where there is none, only ``pid == ancestor`` counts)."""
    for _ in range(_MAX_ANCESTRY):
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if pid <= 1:
            return False
    return False
