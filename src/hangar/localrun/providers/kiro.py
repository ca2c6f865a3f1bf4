"""The Kiro CLI provider (``kiro-cli chat``), following the conversation it keeps for the folder.

Session: Kiro CLI 1.x keeps one conversation per working directory in its SQLite store
(:mod:`hangar.localrun.providers.kiro_folder`), rewriting the row after every turn. The row is
addressed by the CLI's own key, the cwd, but every ``kiro-cli chat`` started in that folder
writes it, so the run follows one conversation id and tells its own CLI's writes from another
terminal's this way (LR-173):

- ``--resume``: the run follows the row's conversation from the start (its earlier turns are
  not this run's and are not reported);
- otherwise, and for a switch later on: a change of the row is taken as the run's own CLI's
  only while no other process in the folder holds Kiro's store open (now and at the last
  look, :func:`~hangar.localrun.providers.kiro_folder.folder_contested`); its conversation id
  becomes the one the run follows. A change to another id while the folder is contested is
  never read. A later write of the run's own CLI carries its whole conversation again, so its
  turns reach the run then.
- ``/clear`` keeps the conversation id and empties its history (Kiro CLI's own source); the
  entries after it are new entries of the same conversation.

Limits: a second ``kiro-cli chat --resume`` of the *same* conversation in the same folder
writes the same id and cannot be told apart; a process that opens the store, writes and
exits between two looks (50 ms) is not seen (a real turn waits for the model).

Payload (the public fixture format): ``history`` entries ``{user, assistant}``; user
``content.Prompt.prompt`` → ``user_input`` (a bare slash command: nothing — Kiro keeps none
in its history anyway), ``content.ToolUseResults`` → ``tool_result`` per result (named after
its call; ``status: "Error"`` → ``is_error``); assistant ``ToolUse`` → ``tool_use`` per tool
(its ``content`` as ``text``), ``Response`` → ``final`` (the turn's answer). Keys come from
the assistant's ``message_id`` (else a digest of the entry), never from its position, which
``/clear`` reuses. Plan mode, as hangar reads it (not verified against the real CLI, which is
not published to a package registry; the tests use a stand-in writing this format): an
assistant ``PlanResponse`` (``content``) is a proposed plan and a user ``content.ImplementPlan``
(``plan``, ``context``) is the user's "implement" action.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from hangar.localrun.providers.args import has_flag
from hangar.localrun.providers.base import PlanHandoff
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.kiro_folder import database, folder_contested, folder_row
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage

SOURCE = "kiro-sqlite"
PLAN_COMMAND = b"/plan\r"
CONTEST_MEMORY = 0.25
"""Seconds a process seen in the folder keeps it contested: a write seen at the next look may
be its last."""


class KiroReader(SessionReader):
    def __init__(self, db: Path, cwd: Path, resume: bool) -> None:
        self.db, self.cwd = db, cwd
        start = folder_row(db, cwd)
        self.seen_version = start.value if start else ""
        self.conversation = start.conversation_id if start and resume else ""
        self.session_id = self.conversation
        self.reported: dict[str, set[str]] = {}
        """Entry ids handled per conversation: a resumed conversation's earlier turns are not
        reported, and a rewritten payload reports only what is new."""
        if start and resume:
            self.reported[self.conversation] = {
                _entry_id(n, e) for n, e in enumerate(_history(start.value))
            }
        self.own_session: int | None = None
        self.contested_at = float("-inf")
        self.seen_at_last_look = True  # nothing is known of the time before the first look
        self.ignored = ""
        """A row value written while the folder was contested: never read, even once the
        other process has gone."""
        self.plans: dict[str, str] = {}
        self.tools: dict[str, str] = {}
        self.turn = ""
        self.commentable = False

    def started(self, pid: int) -> None:
        self.own_session = pid  # the CLI leads its own session (its terminal's)

    def _contested(self) -> bool:
        """Whether another process may have written since the last look: one is there now,
        was there at the last look (however long ago: a stalled poll must not shorten it), or
        was seen within :data:`CONTEST_MEMORY`."""
        now = time.monotonic()
        seen = folder_contested(self.db, self.cwd, self.own_session)
        before, self.seen_at_last_look = self.seen_at_last_look, seen
        if seen:
            self.contested_at = now
        return seen or before or now - self.contested_at < CONTEST_MEMORY

    def read(self) -> list[Seen]:
        contested = self._contested()  # at every look: a short-lived writer must be seen
        row = folder_row(self.db, self.cwd)
        if row is None or row.value in (self.seen_version, self.ignored):
            return []  # Kiro rewrites the whole payload: unchanged text, nothing new
        if row.conversation_id != self.conversation:
            if contested:
                self.ignored = row.value  # maybe another terminal's conversation (LR-173)
                return []
            self.conversation = self.session_id = row.conversation_id
        self.seen_version = row.value
        done = self.reported.setdefault(self.conversation, set())
        out: list[Seen] = []
        for index, entry in enumerate(_history(row.value)):
            entry_id = _entry_id(index, entry)
            if entry_id not in done:
                done.add(entry_id)
                out.extend(self._entry(entry_id, entry))
        return out

    def _key(self, entry_id: str, suffix: str) -> str:
        return f"kiro:conversation:{self.conversation}:message:{entry_id}:{suffix}"

    def _message(self, kind: MessageType, entry_id: str, suffix: str, **fields: Any) -> RunMessage:
        data = dict(fields.pop("input", {}) or {})
        data.setdefault("session_id", self.conversation)
        data["turnKey"] = f"kiro:conversation:{self.conversation}:message:{self.turn}"
        return RunMessage(kind, SOURCE, self._key(entry_id, suffix), input=data, **fields)

    def _entry(self, index: str, entry: dict[str, Any]) -> list[Seen]:
        user, assistant = _map(entry.get("user")), _map(entry.get("assistant"))
        content = _map(user.get("content"))
        out: list[Seen] = []
        given = _map(content.get("Prompt")).get("prompt")
        prompt = given.strip() if isinstance(given, str) else ""
        slash = parse_slash(prompt)
        if "Prompt" in content:  # a new turn: its tool results and answer follow in later entries
            self.turn = index
            self.commentable = bool(prompt) and not (slash is not None and not slash.args)
        commentable = self.commentable
        if commentable and prompt:
            data: dict[str, Any] = {}
            if slash is not None:
                data = {"command": True, "slash_command": slash.name, "slash_args": slash.args}
            user_input = self._message("user_input", index, "user", content=prompt, input=data)
            out.append(Seen((user_input,)))
        results = _map(content.get("ToolUseResults")).get("tool_use_results")
        for n, result in enumerate(_list(results)):
            call = str(result.get("tool_use_id") or "")
            output = "\n".join(
                str(item.get("Text", json.dumps(item.get("Json"))))
                for item in _list(result.get("content"))
            )
            failed = str(result.get("status") or "").lower() == "error"
            message = self._message(
                "tool_result", index, f"tool-result:{n}", tool=self.tools.get(call, "unknown"),
                output=output, input={"tool_use_id": call, "is_error": failed},
            )  # fmt: skip
            out.append(Seen((message,)))
        implement = _map(content.get("ImplementPlan"))
        if isinstance(implement.get("plan"), str):
            plan = str(implement["plan"])
            context: Literal["current", "clear"] = (
                "clear" if implement.get("context") == "clear" else "current"
            )
            key = self.plans.get(plan, self._key(index, "plan"))
            out.append(Seen(handoff=PlanHandoff(plan, SOURCE, key, context)))
        tool_use = _map(assistant.get("ToolUse"))
        for n, tool in enumerate(_list(tool_use.get("tool_uses"))):
            name, call = str(tool.get("name")), str(tool.get("id") or "")
            self.tools[call] = name
            data = {"input": _map(tool.get("args")), "tool_use_id": call}
            out.append(
                Seen((self._message("tool_use", index, f"tool-use:{n}", tool=name, input=data),))
            )
        if str(tool_use.get("content") or "").strip():
            text = self._message("text", index, "text", content=str(tool_use["content"]))
            out.append(Seen((text,)))
        response = _map(assistant.get("Response"))
        if str(response.get("content") or "").strip():
            kind: MessageType = "final" if commentable else "text"
            out.append(Seen((self._message(kind, index, kind, content=str(response["content"])),)))
        plan_response = _map(assistant.get("PlanResponse"))
        if str(plan_response.get("content") or "").strip():
            plan = str(plan_response["content"])
            key = self._key(index, "plan")
            self.plans[plan] = key
            out.append(Seen(plan=PlanHandoff(plan, SOURCE, key)))
        return out


def _entry_id(index: int, entry: dict[str, Any]) -> str:
    """The entry's own id: its assistant message's ``message_id``, else a digest of it."""
    for reply in _map(entry.get("assistant")).values():
        message_id = _map(reply).get("message_id")
        if isinstance(message_id, str) and message_id:
            return message_id
    body = json.dumps(entry, sort_keys=True, ensure_ascii=False).encode()
    return f"entry-{index}-{hashlib.sha256(body).hexdigest()[:16]}"


def _history(value: str) -> list[dict[str, Any]]:
    try:
        payload = json.loads(value)
    except ValueError:
        return []
    history = payload.get("history") if isinstance(payload, dict) else None
    entries = history if isinstance(history, list) else []
    return [
        {"user": e[0], "assistant": e[1]} if isinstance(e, list) and len(e) == 2 else _map(e)
        for e in entries
    ]


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


class KiroProvider(FollowedProvider):
    name = "kiro"
    executables = ("kiro-cli",)

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        reader = KiroReader(database(env), cwd, resume=has_flag(args, "--resume", "-r"))
        startup = PLAN_COMMAND if discussion else b""  # Kiro's own /plan (LR-223)
        return Prepared(list(args), reader, startup_input=startup)

    @classmethod
    def resume_session_id(
        cls, args: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> str | None:
        if not has_flag(args, "--resume", "-r"):
            return None
        row = folder_row(database(env), cwd)
        return row.conversation_id if row else None

    @classmethod
    def resume_command(cls, args: Sequence[str], session_id: str) -> str | None:
        return shlex.join([args[0], "chat", "--resume"])
