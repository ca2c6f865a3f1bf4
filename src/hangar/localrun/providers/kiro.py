"""The Kiro CLI provider (``kiro-cli chat``), following the conversation it keeps for the folder.

Session: Kiro keeps one conversation per working directory in its SQLite store
(``$XDG_DATA_HOME|~/.local/share/kiro-cli/data.sqlite3``, table ``conversations_v2``, ``key`` =
the directory), rewriting the row's ``value`` (the conversation payload) as it goes. That row
is addressed by the CLI's own key, the cwd, so following it is never a guess at "the newest
session"; its ``conversation_id`` is the session id. ``kiro-cli chat --resume`` resumes the
folder's conversation, so a discussion is found again by the id of that row. In a discussion
hangar types Kiro's native ``/plan`` once the CLI is up (LR-223).

Payload (the public fixture format): ``history`` entries ``{user, assistant}``; user
``content.Prompt.prompt`` → ``user_input``, ``content.ToolUseResults`` → ``tool_result`` per
result; assistant ``ToolUse`` → ``tool_use`` per tool (its ``content`` as ``text``),
``Response`` → ``final`` (the turn's answer). Plan mode, as hangar reads it (not verified
against the real CLI, which is not installable here; the tests use a stand-in writing this
format): an assistant ``PlanResponse`` (``content``) is a proposed plan and a user
``content.ImplementPlan`` (``plan``, ``context``) is the user's "implement" action.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from hangar.agents.registry import agents
from hangar.localrun.providers.args import has_flag
from hangar.localrun.providers.base import PlanHandoff
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.model.run_messages import MessageType, RunMessage

SOURCE = "kiro-sqlite"
PLAN_COMMAND = b"/plan\r"


def database(env: Mapping[str, str]) -> Path:
    legacy = agents()["kiro"].resolve_home(env).location("legacyData")
    assert legacy is not None  # declared in the agent registry
    return legacy / "data.sqlite3"


def folder_row(db: Path, cwd: Path) -> tuple[str, str, str] | None:
    """``(conversation_id, value, updated_at)`` of the folder's conversation, if any."""
    if not db.exists():
        return None
    try:
        with closing(sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True, timeout=2)) as c:
            row = c.execute(
                "SELECT conversation_id, value, updated_at FROM conversations_v2 WHERE key = ?",
                (str(cwd),),
            ).fetchone()
    except sqlite3.Error:
        return None  # being written, or not Kiro's: look again on the next poll
    return (str(row[0]), str(row[1]), str(row[2])) if row else None


class KiroReader(SessionReader):
    def __init__(self, db: Path, cwd: Path, resume: bool) -> None:
        self.db, self.cwd = db, cwd
        start = folder_row(db, cwd)
        self.seen_version = start[1] if start else ""
        self.conversation = start[0] if start and resume else ""
        self.done = len(_history(start[1])) if start and resume else 0
        """Entries already handled: a resumed conversation's earlier turns are not reported."""
        self.session_id = self.conversation
        self.plans: dict[str, str] = {}
        self.tools: dict[str, str] = {}
        self.turn = self.done
        self.commentable = False

    def read(self) -> list[Seen]:
        row = folder_row(self.db, self.cwd)
        if row is None or row[1] == self.seen_version:
            return []  # Kiro rewrites the whole payload: unchanged text, nothing new
        conversation, value, _ = row
        self.seen_version = value
        if conversation != self.conversation:  # a new conversation for this folder
            self.conversation, self.session_id, self.done = conversation, conversation, 0
        history = _history(value)
        out: list[Seen] = []
        for index in range(self.done, len(history)):
            out.extend(self._entry(index, history[index]))
        self.done = len(history)
        return out

    def _message(self, kind: MessageType, index: int, suffix: str, **fields: Any) -> RunMessage:
        data = dict(fields.pop("input", {}) or {})
        data["turnKey"] = f"kiro:conversation:{self.conversation}:entry:{self.turn}"
        key = f"kiro:conversation:{self.conversation}:entry:{index}:{suffix}"
        return RunMessage(kind, SOURCE, key, input=data, **fields)

    def _entry(self, index: int, entry: dict[str, Any]) -> list[Seen]:
        user, assistant = _map(entry.get("user")), _map(entry.get("assistant"))
        content = _map(user.get("content"))
        out: list[Seen] = []
        given = _map(content.get("Prompt")).get("prompt")
        prompt = given.strip() if isinstance(given, str) else ""
        if "Prompt" in content:  # a new turn: its tool results and answer follow in later entries
            self.turn, self.commentable = index, bool(prompt) and not prompt.startswith("/")
        commentable = self.commentable
        if commentable and prompt:
            out.append(Seen((self._message("user_input", index, "user", content=prompt),)))
        results = _map(content.get("ToolUseResults")).get("tool_use_results")
        for n, result in enumerate(_list(results)):
            call = str(result.get("tool_use_id") or "")
            output = "\n".join(
                str(item.get("Text", json.dumps(item.get("Json"))))
                for item in _list(result.get("content"))
            )
            name = self.tools.get(call, "unknown")
            message = self._message(
                "tool_result", index, f"tool-result:{n}", tool=name, output=output
            )
            out.append(Seen((message,)))
        implement = _map(content.get("ImplementPlan"))
        if isinstance(implement.get("plan"), str):
            plan = str(implement["plan"])
            context: Literal["current", "clear"] = (
                "clear" if implement.get("context") == "clear" else "current"
            )
            key = self.plans.get(plan, f"kiro:conversation:{self.conversation}:plan:{index}")
            out.append(Seen(handoff=PlanHandoff(plan, SOURCE, key, context)))
        tool_use = _map(assistant.get("ToolUse"))
        for n, tool in enumerate(_list(tool_use.get("tool_uses"))):
            data = {"input": _map(tool.get("args"))}
            name = str(tool.get("name"))
            self.tools[str(tool.get("id") or "")] = name
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
            key = f"kiro:conversation:{self.conversation}:plan:{index}"
            self.plans[plan] = key
            out.append(Seen(plan=PlanHandoff(plan, SOURCE, key)))
        return out


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
        return row[0] if row else None

    @classmethod
    def resume_command(cls, args: Sequence[str], session_id: str) -> str | None:
        return shlex.join([args[0], "chat", "--resume"])
