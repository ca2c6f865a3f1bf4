"""The Antigravity CLI provider (``agy``), following its conversation's step log.

Session: hangar starts ``agy … --log-file FILE`` and reads the conversation id from the line
``Conversation ID: <id>`` of that log, so the step log to follow is named by the CLI itself:
``~/.gemini/antigravity-cli/brain/<id>/.system_generated/logs/transcript.jsonl``. In a
discussion agy runs with ``--mode=plan`` unless the user gave ``--mode`` (LR-224). hangar
knows no resume flag of agy, so a discussion with it cannot be resumed from the CLI (the
summary says so).

Steps (the public fixture format, one JSON object per line with ``type``, ``source``,
``content``…): ``USER_INPUT`` (the request inside ``<USER_REQUEST>``) → ``user_input``;
``PLANNER_RESPONSE`` → ``thinking`` (its ``thinking``), ``tool_use`` per ``tool_calls`` item,
and its ``content`` as ``text`` — ``final`` when the response calls no tool (the turn's
answer); ``RUN_COMMAND``, ``VIEW_FILE``, ``LIST_DIRECTORY``, ``CODE_ACTION``, ``GREP_SEARCH``,
``SEARCH_WEB``… → ``tool_result``; ``CHECKPOINT``, ``CONVERSATION_HISTORY``,
``SYSTEM_MESSAGE`` and unknown steps → nothing. Plan mode, as hangar reads it (not verified
against the real CLI, which is not installable here; the tests use a stand-in writing this
format): an ``IMPLEMENTATION_PLAN`` step's ``content`` is a proposed plan and a
``PLAN_APPROVED`` step (``content``, ``context``) is the user's "implement" action.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from hangar.agents.registry import agents
from hangar.localrun.providers.args import has_flag
from hangar.localrun.providers.base import PlanHandoff
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.jsonl_tail import JsonlTail
from hangar.model.run_messages import MessageType, RunMessage

SOURCE = "agy-steps"
_CONVERSATION = re.compile(r"conversation id:\s*([A-Za-z0-9-]{8,})", re.I)
_REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>", re.S)
_SKIPPED = {"CHECKPOINT", "CONVERSATION_HISTORY", "SYSTEM_MESSAGE", "GENERIC"}


class AgyReader(SessionReader):
    def __init__(self, log_file: Path, brain: Path) -> None:
        self.log_file, self.brain = log_file, brain
        self.tail = JsonlTail()
        self.turn_key = ""
        self.commentable = False
        self.plans: dict[str, str] = {}

    def read(self) -> list[Seen]:
        if self.tail.path is None:
            try:
                found = _CONVERSATION.search(self.log_file.read_text("utf-8", "replace"))
            except OSError:
                return []
            if found is None:
                return []
            self.session_id = found.group(1)
            logs = self.brain / self.session_id / ".system_generated" / "logs"
            self.tail.path = logs / "transcript.jsonl"
        out: list[Seen] = []
        for line, step in self.tail.records():
            out.extend(self._step(line, step))
        return out

    def _message(self, kind: MessageType, line: int, suffix: str, **fields: Any) -> RunMessage:
        data = dict(fields.pop("input", {}) or {})
        if self.turn_key:
            data["turnKey"] = self.turn_key
        key = f"agy:conversation:{self.session_id}:step-line:{line}:{suffix}"
        return RunMessage(kind, SOURCE, key, input=data, **fields)

    def _step(self, line: int, step: dict[str, Any]) -> list[Seen]:
        kind = str(step.get("type") or "")
        given = step.get("content")
        content = given if isinstance(given, str) else ""
        if kind == "USER_INPUT":
            request = _REQUEST.search(content)
            text = (request.group(1) if request else content).strip()
            self.turn_key = f"agy:conversation:{self.session_id}:step-line:{line}"
            self.commentable = bool(text) and not text.startswith("/")
            if not self.commentable:
                return []
            return [Seen((self._message("user_input", line, "user", content=text),))]
        if kind == "PLANNER_RESPONSE":
            return self._planner(line, step, content)
        if kind == "IMPLEMENTATION_PLAN" and content.strip():
            key = f"agy:conversation:{self.session_id}:plan:{line}"
            self.plans[content] = key
            return [Seen(plan=PlanHandoff(content, SOURCE, key))]
        if kind == "PLAN_APPROVED" and content.strip():
            context: Literal["current", "clear"] = (
                "clear" if step.get("context") == "clear" else "current"
            )
            key = self.plans.get(content, f"agy:conversation:{self.session_id}:plan:{line}")
            return [Seen(handoff=PlanHandoff(content, SOURCE, key, context))]
        if kind in _SKIPPED or not kind:
            return []
        tool = kind.lower()
        return [Seen((self._message("tool_result", line, "result", tool=tool, output=content),))]

    def _planner(self, line: int, step: dict[str, Any], content: str) -> list[Seen]:
        messages: list[RunMessage] = []
        if isinstance(step.get("thinking"), str) and step["thinking"].strip():
            messages.append(self._message("thinking", line, "thinking", content=step["thinking"]))
        calls = [c for c in step.get("tool_calls") or [] if isinstance(c, dict)]
        for n, call in enumerate(calls):
            arguments = call.get("args") if isinstance(call.get("args"), dict) else {}
            messages.append(
                self._message(
                    "tool_use",
                    line,
                    f"tool-use:{n}",
                    tool=str(call.get("name")),
                    input={"input": arguments},
                )
            )
        if content.strip():
            final = not calls and self.commentable
            kind: MessageType = "final" if final else "text"
            messages.append(self._message(kind, line, kind, content=content))
        return [Seen(tuple(messages))]


class AgyProvider(FollowedProvider):
    name = "agy"
    executables = ("agy", "antigravity")
    owned_flags = ("--log-file",)

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        folder = Path(tempfile.mkdtemp(prefix="hangar-agy-"))
        log_file = folder / "agy.log"
        argv = [*args, "--log-file", str(log_file)]
        if discussion and not has_flag(args, "--mode"):
            argv.append("--mode=plan")  # LR-224
        brain = agents()["agy"].resolve_home(env).root / "brain"
        return Prepared(
            argv,
            AgyReader(log_file, brain),
            cleanup=lambda: shutil.rmtree(folder, ignore_errors=True),
        )
