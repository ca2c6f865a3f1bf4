"""OpenCode server bus events (``GET /event``) → run messages (LR-150..LR-171, CL rules).

The bus belongs to the OpenCode process hangar started, so every event is this TUI's; a
child session (``parentID``, e.g. a ``task`` sub-agent) is not the user's conversation and
is skipped. Sessions the TUI creates or switches to (``/new``, the session list) are
followed as they appear.

- user ``text`` part (not ``synthetic``) → ``user_input`` (a bare slash command: nothing,
  and its turn gets no final; with arguments: ``command``/``commentable``);
- assistant ``text`` part, once complete (``time.end``) → ``text``; the last one of an
  assistant message that did not stop for tool calls → ``final`` when its turn (the user
  message it answers, ``parentID``) is commentable (LR-167, LR-170); streaming updates and
  ``message.part.delta`` are never reported (LR-171); ``reasoning`` parts are not (LR-153);
- ``tool`` part → ``tool_use`` when it runs and ``tool_result`` when it completes or fails,
  with OpenCode's own tool name (``bash``, ``edit``, …) and its output as OpenCode stores it;
- ``session.error`` and an assistant message's ``error`` → ``error`` (once per failure: the
  same text for the same request is one error, whichever event came first);
- ``todo.updated`` and ``todowrite`` tool parts → the run's checklist
  (:class:`~hangar.agents.checklist_events.OpenCodeEventMapper`, then the ledger);
- a completed assistant message's ``tokens`` → usage of its model.

sourceKeys (OpenCode's own ids): ``session:S:message:M:part:P:{user|text|final|tool-use|
tool-result}``, ``session:S:message:M:error``, ``session:S:event:E:error``, checklists
``session:S:checklist:{callID|E}``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from hangar.agents.checklist_events import OpenCodeEventMapper
from hangar.localrun.providers.base import MessageSink, UsageSink
from hangar.localrun.providers.run_checklist import RunChecklists
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage, UsageEntry

SOURCE = "opencode-server"
PROVIDER = "opencode"


def _map(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass
class _Message:
    session: str
    role: str
    parent: str = ""
    finish: str | None = None
    completed: bool = False
    held: dict[str, Any] | None = None  # the last complete text part, held for the final


@dataclass
class OpenCodeBusMapper:
    reporter: MessageSink
    usage: UsageSink
    sessions: list[str] = field(default_factory=list)
    _children: set[str] = field(default_factory=set)
    _messages: dict[str, _Message] = field(default_factory=dict)
    _early_parts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _commentable: dict[str, bool] = field(default_factory=dict)
    _tools_started: set[str] = field(default_factory=set)
    _done: set[str] = field(default_factory=set)
    _requests: dict[str, str] = field(default_factory=dict)  # session → its latest request
    _errors: set[tuple[str, str, str]] = field(default_factory=set)
    _checklist_mappers: dict[str, OpenCodeEventMapper] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.checklists = RunChecklists(self.reporter, SOURCE)

    # -- entry ------------------------------------------------------------------------
    def feed(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._feed(event)

    def _feed(self, event: dict[str, Any]) -> None:
        kind = str(event.get("type") or "")
        props = _map(event.get("properties"))
        if kind in ("session.created", "session.updated"):
            info = _map(props.get("info"))
            if info.get("parentID") and info.get("id"):
                self._children.add(str(info["id"]))
            return
        session = str(
            props.get("sessionID")
            or _map(props.get("info")).get("sessionID")
            or _map(props.get("part")).get("sessionID")
            or ""
        )
        if not session or session in self._children:
            return
        self._checklist(session, event)
        if kind == "message.updated":
            self._message(session, _map(props.get("info")))
        elif kind == "message.part.updated":
            self._part(session, _map(props.get("part")))
        elif kind == "session.idle" or (
            kind == "session.status" and _map(props.get("status")).get("type") == "idle"
        ):
            self._release(session)
        elif kind == "session.error":
            error = _map(props.get("error"))
            text = str(_map(error.get("data")).get("message") or error.get("name") or "error")
            event_id = str(event.get("id") or "")
            if event_id:
                self._error(f"session:{session}:event:{event_id}:error", text, session,
                            self._requests.get(session, ""))  # fmt: skip

    # -- messages ---------------------------------------------------------------------
    def _follow(self, session: str) -> None:
        if session not in self.sessions:
            self.sessions.append(session)

    def _message(self, session: str, info: dict[str, Any]) -> None:
        message_id, role = str(info.get("id") or ""), str(info.get("role") or "")
        if not message_id or role not in ("user", "assistant"):
            return
        self._follow(session)
        message = self._messages.get(message_id)
        if message is None:
            message = _Message(session, role, str(info.get("parentID") or ""))
            self._messages[message_id] = message
            if role == "user":
                self._release(session)  # the previous request is over
                self._requests[session] = message_id
        if role == "assistant":
            time = _map(info.get("time"))
            if info.get("finish"):
                message.finish = str(info["finish"])
            if time.get("completed") and not message.completed:
                message.completed = True
                self._usage(info)
            error = _map(info.get("error"))
            if error and f"{message_id}:error" not in self._done:
                self._done.add(f"{message_id}:error")
                text = str(_map(error.get("data")).get("message") or error.get("name") or "error")
                self._error(f"session:{session}:message:{message_id}:error", text, session,
                            message.parent)  # fmt: skip
        for part in self._early_parts.pop(message_id, []):
            self._part(session, part)

    def _part(self, session: str, part: dict[str, Any]) -> None:
        message_id = str(part.get("messageID") or "")
        part_id = str(part.get("id") or "")
        if not message_id or not part_id:
            return
        message = self._messages.get(message_id)
        if message is None:  # its message.updated has not arrived yet
            self._early_parts.setdefault(message_id, []).append(part)
            return
        kind = part.get("type")
        base = f"session:{session}:message:{message_id}:part:{part_id}"
        if message.role == "user":
            if kind == "text" and not part.get("synthetic"):
                self._user(session, message_id, base, str(part.get("text") or ""))
            return
        if kind == "text" and _map(part.get("time")).get("end") and not part.get("synthetic"):
            if part_id in {str(_map(message.held).get("id"))} or f"{base}:text" in self._done:
                return
            self._hold(message, dict(part))
        elif kind == "tool":
            self._flush_held(message, as_final=False)
            self._tool(session, message, base, part)

    def _user(self, session: str, message_id: str, base: str, text: str) -> None:
        if f"{base}:user" in self._done or not text.strip():
            return
        self._done.add(f"{base}:user")
        slash = parse_slash(text)
        data: dict[str, Any] = {}
        if slash is not None:
            if not slash.args:
                self._commentable[message_id] = False
                return  # a bare slash command is not user input (LR-164, LR-165)
            data = {"command": True, "slash_command": slash.name, "slash_args": slash.args,
                    "commentable": True}  # fmt: skip
        self._commentable[message_id] = True
        self._emit("user_input", f"{base}:user", text.strip(), session, turn=message_id, **data)

    def _hold(self, message: _Message, part: dict[str, Any]) -> None:
        self._flush_held(message, as_final=False)
        message.held = part
        if message.completed and message.finish not in (None, "tool-calls"):
            return  # released at idle or at the next request (a late last part)

    def _flush_held(self, message: _Message, as_final: bool) -> None:
        part, message.held = message.held, None
        if part is None:
            return
        base = f"session:{message.session}:message:{part.get('messageID')}:part:{part.get('id')}"
        final = as_final and self._commentable.get(message.parent, False)
        kind: MessageType = "final" if final else "text"
        self._done.add(f"{base}:text")
        self._emit(kind, f"{base}:{kind}", str(part.get("text") or ""), message.session,
                   turn=message.parent)  # fmt: skip

    def _release(self, session: str) -> None:
        """The session went idle (or a new request began): its held texts are reported."""
        for message in self._messages.values():
            if message.session == session and message.held is not None:
                self._flush_held(message, as_final=message.finish not in (None, "tool-calls"))

    def _tool(self, session: str, message: _Message, base: str, part: dict[str, Any]) -> None:
        state = _map(part.get("state"))
        status = state.get("status")
        tool = str(part.get("tool") or "unknown")
        call = str(part.get("callID") or "")
        if status in ("running", "completed", "error") and base not in self._tools_started:
            self._tools_started.add(base)
            self._emit("tool_use", f"{base}:tool-use", "", session, turn=message.parent,
                       tool=tool, call_id=call, input=_map(state.get("input")))  # fmt: skip
        if status in ("completed", "error") and f"{base}:tool-result" not in self._done:
            self._done.add(f"{base}:tool-result")
            output = state.get("output") if status == "completed" else state.get("error")
            self._emit("tool_result", f"{base}:tool-result", "", session, turn=message.parent,
                       tool=tool, call_id=call, output=str(output or ""),
                       is_error=status == "error")  # fmt: skip

    def _error(self, key: str, text: str, session: str, turn: str) -> None:
        """One ``error`` per failure: OpenCode reports a failed request both as
        ``session.error`` and on the assistant message; the second is the same failure."""
        if (session, turn, text) in self._errors:
            return
        self._errors.add((session, turn, text))
        self._emit("error", key, text, session, turn=turn)

    # -- side channels ----------------------------------------------------------------
    def _checklist(self, session: str, event: dict[str, Any]) -> None:
        mapper = self._checklist_mappers.setdefault(session, OpenCodeEventMapper(session))
        update = mapper.feed(event)
        if update is None:
            return
        key = update.key or str(event.get("id") or "")
        self.checklists.offer(session, update, key, f"{session}:{update.turn}")

    def _usage(self, info: dict[str, Any]) -> None:
        tokens = _map(info.get("tokens"))
        cache = _map(tokens.get("cache"))
        if not tokens:
            return
        self.usage.add(
            UsageEntry(
                PROVIDER,
                str(info.get("modelID") or ""),
                input_tokens=int(tokens.get("input") or 0),
                output_tokens=int(tokens.get("output") or 0),
                cache_read_tokens=int(cache.get("read") or 0),
                cache_write_tokens=int(cache.get("write") or 0),
            )
        )

    def _emit(
        self,
        kind: MessageType,
        key: str,
        content: str,
        session: str,
        turn: str = "",
        tool: str | None = None,
        output: str | None = None,
        **data: Any,
    ) -> None:
        data["session_id"] = session
        if turn:
            data["turnKey"] = f"{session}:{turn}"
        self.reporter.report(
            RunMessage(kind, SOURCE, key, content=content, tool=tool, input=data, output=output)
        )

    def close(self) -> None:
        """The TUI ended: every held text is reported."""
        with self._lock:
            for session in list(self.sessions):
                self._release(session)
