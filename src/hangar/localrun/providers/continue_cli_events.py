"""Continue ``cn`` session files as run messages (the reader of :mod:`.continue_cli`).

Which files: exactly the sessions the ``cn`` process of this run reports writing (the notice
file its session hook appends to, LR-176, LR-181) — several per run after ``/clear`` (a new
session id) or a pick in ``/resume`` — never a file found in the folder (LR-172, LR-173).
A notice's ``baseline`` is how many history entries the file held before this process first
wrote it: those belong to an earlier run (a resumed session) and are never reported.

A session file (``sessions/<id>.json``) is rewritten whole on each save: ``{sessionId,
history: [{message{role, content, toolCalls?, usage?}, toolCallStates?, conversationSummary?}],
…}``; system entries are dropped by cn on save. Entries have no ids of their own, so an entry
is named by its position *and* a digest of what it says (role, text, tool call ids); an entry
that only gains tool results keeps its name. A save that changes entries already read is a
rewrite — a rewind, a compaction, or a pick in ``/resume`` (cn 1.5.47 copies the picked
history into the *current* session's file and leaves the picked file as it was): what the
file holds then is history, not new work, and the session is read on from its new end (the
entries of a later save get new names where positions repeat). The hook marks such a save
(``rewrite: N``), so new work saved right after it is still reported when both saves are read
at once; a rewrite the hook did not mark is found by the digests. Mapping:

- user entry → ``user_input`` (a bare slash command: nothing, and its turn gets no final; with
  arguments: ``command``/``commentable``, LR-164);
- assistant text → ``text``; the text of an entry without tool calls ends the turn: ``final``
  when the turn is commentable (LR-167, LR-170);
- assistant ``toolCalls`` → ``tool_use`` with cn's tool name (``Bash``, ``Read``, …); a
  ``Checklist`` call carries ``input.checklist`` when its ledger commits it (CL rules);
- ``toolCallStates`` done / errored / canceled → ``tool_result`` (its ``output`` texts);
- ``thinking`` entry → ``thinking``; ``message.usage`` → usage of its ``model``.

Not in the file, so not reported: a failed model request (cn shows it as a screen-only system
line that it drops on save), streaming text, compaction summaries.

sourceKeys: ``continue:session:SID:entry:N:DIGEST:{user|text|final|thinking}`` and
``…:tool-use:CALL`` / ``…:tool-result:CALL``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hangar.agents.checklists import from_continue_checklist
from hangar.localrun.providers.checklists import RunChecklists
from hangar.localrun.providers.jsonl_tail import JsonlTail
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage, UsageEntry

SOURCE = "continue-session"
PROVIDER = "continue"
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
_RESULT_STATES = frozenset({"done", "errored", "canceled"})


@dataclass
class Mapped:
    messages: list[RunMessage] = field(default_factory=list)
    usage: list[UsageEntry] = field(default_factory=list)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _digest(message: dict[str, Any]) -> str:
    calls = [str(_map(c).get("id") or "") for c in _dicts(message.get("toolCalls"))]
    said = json.dumps([message.get("role"), _text(message.get("content")), calls])
    return hashlib.sha256(said.encode()).hexdigest()[:12]


def _digests(entries: list[dict[str, Any]]) -> list[str]:
    return [_digest(_map(e.get("message"))) for e in entries]


def _settled(entry: dict[str, Any]) -> bool:
    """True when cn will not add to the entry (every tool call has its result)."""
    calls = _dicts(_map(entry.get("message")).get("toolCalls"))
    states = _dicts(entry.get("toolCallStates"))
    status = {str(s.get("toolCallId")): s.get("status") for s in states}
    return all(status.get(str(c.get("id"))) in _RESULT_STATES for c in calls)


@dataclass
class _Turn:
    key: str = ""
    commentable: bool = False


@dataclass
class SessionMapper:
    """One followed session: what was reported, and how far its history is settled."""

    session_id: str
    baseline: int
    checklists: RunChecklists
    reported: set[str] = field(default_factory=set)
    settled: int = 0
    settled_digests: list[str] = field(default_factory=list)
    settled_turn: _Turn = field(default_factory=_Turn)
    rewritten: int | None = None
    """A rewrite the hook saw (``rewrite: N``): the file's first N entries are history now,
    even when later saves were read together with it."""

    def map(self, history: list[dict[str, Any]]) -> Mapped:
        out = Mapped()
        if self.rewritten is not None:
            self.baseline = self.settled = min(self.rewritten, len(history))
            self.settled_digests = _digests(history[: self.settled])
            self.settled_turn = _Turn()
            self.rewritten = None
        if self.settled < self.baseline:  # an earlier run's entries: settled, never reported
            self.settled = min(self.baseline, len(history))
            self.settled_digests = [
                _digest(_map(e.get("message"))) for e in history[: self.settled]
            ]
        digests = [_digest(_map(e.get("message"))) for e in history[: self.settled]]
        if digests != self.settled_digests:  # rewritten: what it holds now is not new work
            self.baseline = self.settled = len(history)
            self.settled_digests = _digests(history)
            self.settled_turn = _Turn()
            return out
        turn = _Turn(self.settled_turn.key, self.settled_turn.commentable)
        advancing = True
        for index in range(self.settled, len(history)):
            entry = history[index]
            digest = _digest(_map(entry.get("message")))
            self._entry(index, digest, entry, turn, out)
            if advancing and _settled(entry):
                self.settled = index + 1
                self.settled_digests.append(digest)
                self.settled_turn = _Turn(turn.key, turn.commentable)
            else:
                advancing = False
        return out

    def _entry(
        self, index: int, digest: str, entry: dict[str, Any], turn: _Turn, out: Mapped
    ) -> None:
        message = _map(entry.get("message"))
        role = message.get("role")
        prefix = f"continue:session:{self.session_id}:entry:{index}:{digest}"
        if entry.get("conversationSummary"):
            return  # a compaction summary is cn's own bookkeeping, not a turn
        text = _text(message.get("content"))

        def emit(kind: MessageType, suffix: str, **fields: Any) -> None:
            key = f"{prefix}:{suffix}"
            if key in self.reported:
                return
            self.reported.add(key)
            data = {"session_id": self.session_id, **fields.pop("input", {})}
            if turn.key:
                data["turnKey"] = turn.key
            out.messages.append(RunMessage(kind, SOURCE, key, input=data, **fields))

        if role == "user":
            turn.key, turn.commentable = prefix, False
            slash = parse_slash(text)
            if slash is not None and not slash.args:
                return  # a bare slash command is not user input (LR-164, LR-165)
            if not text.strip():
                return
            data: dict[str, Any] = {}
            if slash is not None:
                data = {"command": True, "slash_command": slash.name, "slash_args": slash.args,
                        "commentable": True}  # fmt: skip
            turn.commentable = True
            emit("user_input", "user", content=text.strip(), input=data)
            return
        if role == "thinking":
            if text.strip():
                emit("thinking", "thinking", content=text)
            return
        if role != "assistant":
            return
        calls = _dicts(message.get("toolCalls"))
        if text.strip():
            final = not calls and turn.commentable
            emit("final" if final else "text", "final" if final else "text", content=text)
        names: dict[str, str] = {}
        for call in calls:
            call_id = str(call.get("id") or "")
            function = _map(call.get("function"))
            name = str(function.get("name") or "unknown")
            names[call_id] = name
            arguments = function.get("arguments")
            try:
                parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError:
                parsed = arguments
            data = {"tool_call_id": call_id, "input": parsed if isinstance(parsed, dict) else {}}
            if name == "Checklist" and f"{prefix}:tool-use:{call_id}" not in self.reported:
                committed = self.checklists.offer(
                    self.session_id,
                    turn.key or prefix,
                    from_continue_checklist(parsed),
                    key=call_id,
                )
                if committed is not None:
                    data["checklist"] = committed
            emit("tool_use", f"tool-use:{call_id}", tool=name, input=data)
        for state in _dicts(entry.get("toolCallStates")):
            status = str(state.get("status") or "")
            call_id = str(state.get("toolCallId") or "")
            if status not in _RESULT_STATES:
                continue
            output = "\n".join(str(o.get("content") or "") for o in _dicts(state.get("output")))
            tool = names.get(call_id) or str(
                _map(_map(state.get("toolCall")).get("function")).get("name") or "unknown"
            )
            emit("tool_result", f"tool-result:{call_id}", tool=tool, output=output,
                 input={"tool_call_id": call_id, "status": status})  # fmt: skip
        usage = _map(message.get("usage"))
        if usage and f"{prefix}:usage" not in self.reported:
            self.reported.add(f"{prefix}:usage")
            out.usage.append(
                UsageEntry(
                    PROVIDER,
                    str(usage.get("model") or ""),
                    _count(usage.get("prompt_tokens")),
                    _count(usage.get("completion_tokens")),
                )
            )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


class ContinueSessions:
    """The sessions this run's ``cn`` named in its notice file, read as they change."""

    def __init__(self, notices: Path, sessions_dir: Path) -> None:
        self.tail = JsonlTail(notices)
        self.sessions_dir = sessions_dir
        self.mappers: dict[str, SessionMapper] = {}
        self.changed: list[str] = []
        self.checklists = RunChecklists()
        self.current = ""
        """The session cn wrote last."""

    def read(self) -> Mapped:
        for _, record in self.tail.records():
            session = record.get("session")
            if not isinstance(session, str) or not _SESSION_ID.match(session):
                continue  # not a notice the hook writes: never a path to follow
            if session not in self.mappers:
                baseline = record.get("baseline")
                start = baseline if isinstance(baseline, int) and baseline >= 0 else 0
                self.mappers[session] = SessionMapper(session, start, self.checklists)
            rewrite = record.get("rewrite")
            if isinstance(rewrite, int) and not isinstance(rewrite, bool) and rewrite >= 0:
                self.mappers[session].rewritten = rewrite
            self.current = session
            if session not in self.changed:
                self.changed.append(session)
        out = Mapped()
        for session in list(self.changed):
            history = self._history(session)
            if history is None:
                continue  # mid-write (cn does not write atomically): the next notice comes
            self.changed.remove(session)
            mapped = self.mappers[session].map(history)
            out.messages.extend(mapped.messages)
            out.usage.extend(mapped.usage)
        return out

    def _history(self, session: str) -> list[dict[str, Any]] | None:
        try:
            data = json.loads((self.sessions_dir / f"{session}.json").read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return _dicts(data.get("history")) if isinstance(data, dict) else None
