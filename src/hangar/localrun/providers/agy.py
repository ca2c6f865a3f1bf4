"""The Antigravity CLI provider (``agy``), following its conversation's step log.

Session: hangar starts ``agy … --log-file FILE`` and reads the conversation id from the line
``Conversation ID: <id>`` of that log, so the step log to follow is named by the CLI itself:
``~/.gemini/antigravity-cli/brain/<id>/.system_generated/logs/transcript.jsonl``. Every further
``Conversation ID:`` line of that log (a new conversation inside the same CLI) is followed
too, from its start; the earlier ones stay followed (a late step still reaches the run). The
log file is the run's own, so a conversation another ``agy`` in the same folder starts is never
read (LR-173). Which of agy's commands start a new conversation, and that it logs a new
``Conversation ID:`` line for it, is not documented; the stand-in does it on ``/clear``. In a
discussion agy runs with ``--mode=plan`` unless the user gave ``--mode`` (LR-224). hangar
knows no resume flag of agy, so a discussion with it cannot be resumed from the CLI (the
summary says so).

Steps (the public fixture format, one JSON object per line with ``type``, ``source``,
``content``…): ``USER_INPUT`` (the request inside ``<USER_REQUEST>``) → ``user_input``;
``PLANNER_RESPONSE`` → ``thinking`` (its ``thinking``), ``tool_use`` per ``tool_calls`` item,
and its ``content`` as ``text`` — ``final`` when the response calls no tool (the turn's
answer); ``RUN_COMMAND``, ``VIEW_FILE``, ``LIST_DIRECTORY``, ``CODE_ACTION``, ``GREP_SEARCH``,
``SEARCH_WEB``… → ``tool_result`` named after the oldest call still waiting for a result
(steps carry no call id; a step whose ``status`` is ``ERROR``/``FAILED`` is ``is_error``);
``ERROR_MESSAGE`` (a Cascade step type the fixture's type names follow; in no fixture) →
``error``; a user request that is a bare slash command → nothing, one with arguments →
``user_input`` marked ``command``; ``CHECKPOINT``, ``CONVERSATION_HISTORY``,
``SYSTEM_MESSAGE`` and unknown steps → nothing. Plan mode, as hangar reads it (not verified
against the real CLI, which is not published to a package registry; the tests use a stand-in
writing this format): an ``IMPLEMENTATION_PLAN`` step's ``content`` is a proposed plan and a
``PLAN_APPROVED`` step (``content``, ``context``) is the user's "implement" action.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hangar.agents.registry import agents
from hangar.localrun.providers.args import has_flag
from hangar.localrun.providers.base import PlanHandoff
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.jsonl_tail import JsonlTail
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage

SOURCE = "agy-steps"
_CONVERSATION = re.compile(r"conversation id:\s*([A-Za-z0-9-]{8,})", re.I)
_REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>", re.S)
_SKIPPED = {"CHECKPOINT", "CONVERSATION_HISTORY", "SYSTEM_MESSAGE", "GENERIC"}


@dataclass
class _Turn:
    key: str
    commentable: bool
    unanswered: list[str] = field(default_factory=list)
    """Calls still waiting for a result, oldest first (steps carry no call id)."""


class AgyReader(SessionReader):
    def __init__(self, log_file: Path, brain: Path) -> None:
        self.log_file, self.brain = log_file, brain
        self.log_offset = 0
        self.tails: dict[str, JsonlTail] = {}
        """Every conversation the run's log named, in order; the last is the current one."""
        self.turns: dict[str, _Turn] = {}
        """The open turn of each conversation (a late step of an earlier one keeps its own)."""
        self.plans: dict[str, str] = {}

    def _conversations(self) -> None:
        try:
            with self.log_file.open("rb") as handle:
                handle.seek(self.log_offset)
                data = handle.read()
        except OSError:
            return
        complete = data[: data.rfind(b"\n") + 1]  # an unfinished line is read when it is done
        self.log_offset += len(complete)
        for found in _CONVERSATION.finditer(complete.decode("utf-8", "replace")):
            conversation = found.group(1)
            if conversation not in self.tails:
                logs = self.brain / conversation / ".system_generated" / "logs"
                self.tails[conversation] = JsonlTail(logs / "transcript.jsonl")
                self.session_id = conversation

    def _turn(self, conversation: str) -> _Turn:
        return self.turns.setdefault(conversation, _Turn("", False))

    def read(self) -> list[Seen]:
        self._conversations()
        out: list[Seen] = []
        for conversation, tail in self.tails.items():
            for line, step in tail.records():
                out.extend(self._step(conversation, line, step))
        return out

    def _message(
        self, kind: MessageType, key: str, suffix: str, conversation: str, **fields: Any
    ) -> RunMessage:
        data = dict(fields.pop("input", {}) or {})
        data.setdefault("session_id", conversation)
        turn = self.turns.get(conversation)
        if turn is not None:
            data["turnKey"] = turn.key
        return RunMessage(kind, SOURCE, f"{key}:{suffix}", input=data, **fields)

    def _step(self, conversation: str, line: int, step: dict[str, Any]) -> list[Seen]:
        key = f"agy:conversation:{conversation}:step-line:{line}"
        kind = str(step.get("type") or "")
        given = step.get("content")
        content = given if isinstance(given, str) else ""
        if kind == "USER_INPUT":
            request = _REQUEST.search(content)
            text = (request.group(1) if request else content).strip()
            slash = parse_slash(text)
            commentable = bool(text) and not (slash is not None and not slash.args)
            self.turns[conversation] = _Turn(key, commentable)
            if not commentable:
                return []
            data: dict[str, Any] = {}
            if slash is not None:
                data = {"command": True, "slash_command": slash.name, "slash_args": slash.args}
            message = self._message("user_input", key, "user", conversation, content=text,
                                    input=data)  # fmt: skip
            return [Seen((message,))]
        if kind == "PLANNER_RESPONSE":
            return self._planner(conversation, key, step, content)
        if kind == "IMPLEMENTATION_PLAN" and content.strip():
            plan_key = f"agy:conversation:{conversation}:plan:{line}"
            self.plans[content] = plan_key
            return [Seen(plan=PlanHandoff(content, SOURCE, plan_key))]
        if kind == "PLAN_APPROVED" and content.strip():
            context: Literal["current", "clear"] = (
                "clear" if step.get("context") == "clear" else "current"
            )
            plan_key = self.plans.get(content, f"agy:conversation:{conversation}:plan:{line}")
            return [Seen(handoff=PlanHandoff(content, SOURCE, plan_key, context))]
        if kind == "ERROR_MESSAGE":
            text = content or str(step.get("error") or "the step failed")
            return [Seen((self._message("error", key, "error", conversation, content=text),))]
        if kind in _SKIPPED or not kind:
            return []
        waiting = self._turn(conversation).unanswered
        tool = waiting.pop(0) if waiting else kind.lower()
        failed = str(step.get("status") or "").upper() in ("ERROR", "FAILED")
        data = {"step": kind, "is_error": failed}
        result = self._message(
            "tool_result", key, "result", conversation, tool=tool, output=content, input=data
        )
        return [Seen((result,))]

    def _planner(
        self, conversation: str, key: str, step: dict[str, Any], content: str
    ) -> list[Seen]:
        messages: list[RunMessage] = []
        if isinstance(step.get("thinking"), str) and step["thinking"].strip():
            messages.append(
                self._message("thinking", key, "thinking", conversation, content=step["thinking"])
            )
        calls = [c for c in step.get("tool_calls") or [] if isinstance(c, dict)]
        for n, call in enumerate(calls):
            arguments = call.get("args") if isinstance(call.get("args"), dict) else {}
            name = str(call.get("name"))
            self._turn(conversation).unanswered.append(name)
            messages.append(self._message("tool_use", key, f"tool-use:{n}", conversation,
                                          tool=name, input={"input": arguments}))  # fmt: skip
        if content.strip():
            final = not calls and self._turn(conversation).commentable
            kind: MessageType = "final" if final else "text"
            messages.append(self._message(kind, key, kind, conversation, content=content))
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
