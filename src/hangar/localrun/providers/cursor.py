"""The Cursor agent CLI provider (``cursor-agent``), following its transcript file.

Session: the chat id from ``--resume ID`` when given; otherwise hangar asks the CLI for a new,
empty chat (``cursor-agent create-chat`` prints its id) and starts ``cursor-agent … --resume
ID``, so the transcript to follow is known before the CLI writes a line:
``$CURSOR_CONFIG_DIR|~/.cursor/projects/<cwd with / as ->/agent-transcripts/ID/ID.jsonl``
(or ``…/agent-transcripts/ID.jsonl``). In a discussion Cursor runs with ``--mode=plan`` unless
the user gave ``--mode`` or ``--plan`` (LR-222).

Records (the public fixture format: ``{"role": "user"|"assistant", "message": {"content":
[blocks]}}`` and ``{"type": "turn_ended"}``): user text (inside ``<user_query>`` when Cursor
wraps it) → ``user_input``; assistant ``thinking`` → ``thinking``; ``text`` → ``text``, the
turn's last one ``final`` at ``turn_ended``; ``tool_use`` → ``tool_use`` with Cursor's tool
name; ``tool_result`` → ``tool_result``. Plan mode, as hangar reads it (not verified against
the real CLI, which is not installable here; the tests use a stand-in writing this format): a
``CreatePlan`` tool call (``input.plan``) is a proposed plan, and a ``{"type":
"plan_approved", "plan", "context"}`` line is the user's "build this plan" action.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from hangar.agents.registry import agents
from hangar.errors import HangarError
from hangar.localrun.providers.args import flag_value, has_flag
from hangar.localrun.providers.base import PlanHandoff
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.jsonl_tail import JsonlTail
from hangar.model.run_messages import MessageType, RunMessage

SOURCE = "cursor-jsonl"
PLAN_TOOL = "CreatePlan"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{7,}$")


def transcript_dir(env: Mapping[str, str], cwd: Path) -> Path:
    root = agents()["cursor"].resolve_home(env).root
    return root / "projects" / str(cwd).strip("/").replace("/", "-") / "agent-transcripts"


class CursorReader(SessionReader):
    def __init__(self, folder: Path, chat_id: str) -> None:
        self.session_id = chat_id
        self.candidates = (folder / chat_id / f"{chat_id}.jsonl", folder / f"{chat_id}.jsonl")
        self.tail = JsonlTail()
        self.pending: tuple[int, str] | None = None
        self.turn_key = ""
        self.commentable = False
        self.plans: dict[str, str] = {}

    def _key(self, line: int, suffix: str) -> str:
        return f"cursor:chat:{self.session_id}:line:{line}:{suffix}"

    def _message(self, kind: MessageType, line: int, suffix: str, **fields: Any) -> RunMessage:
        data = dict(fields.pop("input", {}) or {})
        if self.turn_key:
            data.setdefault("turnKey", self.turn_key)
        return RunMessage(kind, SOURCE, self._key(line, suffix), input=data, **fields)

    def read(self) -> list[Seen]:
        if self.tail.path is None:
            self.tail.path = next((p for p in self.candidates if p.exists()), None)
        out: list[Seen] = []
        for line, record in self.tail.records():
            out.extend(self._record(line, record))
        return out

    def _flush(self, final: bool) -> list[Seen]:
        pending, self.pending = self.pending, None
        if pending is None:
            return []
        line, text = pending
        kind: MessageType = "final" if final and self.commentable else "text"
        return [Seen((self._message(kind, line, kind, content=text),))]

    def _record(self, line: int, record: dict[str, Any]) -> list[Seen]:
        role, kind = record.get("role"), record.get("type")
        if kind == "turn_ended":
            return self._flush(final=True)
        if kind == "plan_approved" and isinstance(record.get("plan"), str):
            plan = str(record["plan"])
            key = self.plans.get(plan, self._key(line, "plan"))
            context: Literal["current", "clear"] = (
                "clear" if record.get("context") == "clear" else "current"
            )
            return [*self._flush(final=True), Seen(handoff=PlanHandoff(plan, SOURCE, key, context))]
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if role == "user":
            return self._user(line, [b for b in blocks if isinstance(b, dict)])
        if role == "assistant":
            return self._assistant(line, [b for b in blocks if isinstance(b, dict)])
        return []

    def _user(self, line: int, blocks: list[dict[str, Any]]) -> list[Seen]:
        out: list[Seen] = []
        for n, block in enumerate(blocks):
            if block.get("type") == "tool_result":
                output = _text(block.get("content"))
                result = self._message("tool_result", line, f"tool-result:{n}", output=output)
                out.append(Seen((result,)))
        texts = [str(b.get("text")) for b in blocks if b.get("type") == "text" and b.get("text")]
        if not texts:
            return out
        text = "\n".join(texts)
        query = _QUERY.search(text)
        text = (query.group(1) if query else text).strip()
        out.extend(self._flush(final=False))
        self.turn_key = self._key(line, "turn")
        self.commentable = bool(text) and not text.startswith("/")
        if self.commentable:
            out.append(Seen((self._message("user_input", line, "user", content=text),)))
        return out

    def _assistant(self, line: int, blocks: list[dict[str, Any]]) -> list[Seen]:
        out: list[Seen] = []
        for n, block in enumerate(blocks):
            kind = block.get("type")
            if kind == "thinking" and block.get("thinking"):
                out.extend(self._flush(final=False))
                thought = str(block["thinking"])
                out.append(
                    Seen((self._message("thinking", line, f"thinking:{n}", content=thought),))
                )
            elif kind == "text" and str(block.get("text") or "").strip():
                out.extend(self._flush(final=False))
                self.pending = (line, str(block["text"]))
            elif kind in ("tool_use", "tool_call"):
                out.extend(self._flush(final=False))
                name = str(block.get("name") or "unknown")
                given = block.get("input")
                arguments: dict[str, Any] = given if isinstance(given, dict) else {}
                data = {"input": arguments}
                tool = self._message("tool_use", line, f"tool-use:{n}", tool=name, input=data)
                plan = arguments.get("plan") if name == PLAN_TOOL else None
                if isinstance(plan, str) and plan.strip():
                    key = self._key(line, "plan")
                    self.plans[plan] = key
                    out.append(Seen((tool,), plan=PlanHandoff(plan, SOURCE, key)))
                else:
                    out.append(Seen((tool,)))
        return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text") or "") for b in content if isinstance(b, dict))
    return ""


class CursorProvider(FollowedProvider):
    name = "cursor"
    executables = ("cursor-agent",)

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        argv = list(args)
        chat_id = flag_value(args, ("--resume",))
        if chat_id is None:
            chat_id = _create_chat(args[0], cwd, env)
            argv += ["--resume", chat_id]
        if discussion and not has_flag(args, "--mode", "--plan"):
            argv.append("--mode=plan")  # LR-222
        return Prepared(argv, CursorReader(transcript_dir(env, cwd), chat_id))

    @classmethod
    def resume_session_id(
        cls, args: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> str | None:
        return flag_value(args, ("--resume",))

    @classmethod
    def resume_command(cls, args: Sequence[str], session_id: str) -> str | None:
        return shlex.join([args[0], "--resume", session_id])


def _create_chat(exe: str, cwd: Path, env: Mapping[str, str]) -> str:
    """A new empty chat's id, from the CLI itself (``cursor-agent create-chat``)."""
    try:
        done = subprocess.run(
            [exe, "create-chat"],
            cwd=cwd,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HangarError(f"`{exe} create-chat` failed: {exc}") from None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not lines or not _ID.match(lines[-1]):
        problem = (done.stderr or done.stdout).strip()[-300:]
        raise HangarError(f"`{exe} create-chat` gave no chat id: {problem}")
    return lines[-1]
