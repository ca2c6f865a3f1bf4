"""The Cursor agent CLI provider (``cursor-agent``), following its transcript file.

Session: the chat id from ``--resume ID`` when given; otherwise hangar asks the CLI for a new,
empty chat (``cursor-agent create-chat`` prints its id) and starts ``cursor-agent … --resume
ID``, so the transcript to follow is known before the CLI writes a line:
``$CURSOR_CONFIG_DIR|~/.cursor/projects/<cwd with / as ->/agent-transcripts/ID/ID.jsonl``
(or ``…/agent-transcripts/ID.jsonl``). A new chat started inside the TUI gets an id hangar
is told nowhere (Cursor has no hook or event stream naming it), and its transcript folder
looks exactly like one another terminal starts in the same project, so it is not followed:
the run keeps the chat it started with (LR-173 over following the switch). In a discussion
Cursor runs with ``--mode=plan`` unless the user gave ``--mode`` or ``--plan`` (LR-222).

Records (the public fixture format: ``{"role": "user"|"assistant", "message": {"content":
[blocks]}}`` and ``{"type": "turn_ended"}``, whose ``status`` other than success makes the
turn an ``error`` with its ``error`` text): user text (inside ``<user_query>`` when Cursor
wraps it) → ``user_input`` (a bare slash command: nothing, and its turn gets no final; one
with arguments: ``user_input`` marked ``command``); assistant ``thinking`` → ``thinking``;
``text`` → ``text``, the turn's last one ``final`` at ``turn_ended``; ``tool_use`` →
``tool_use`` with Cursor's tool name; ``tool_result`` → ``tool_result``. Plan mode, as
hangar reads it (not verified against the real CLI, which is not published to a package
registry; the tests use a stand-in writing this format): a ``CreatePlan`` tool call
(``input.plan``) is a proposed plan, and a ``{"type": "plan_approved", "plan", "context"}``
line is the user's "build this plan" action.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from hangar.agents.registry import agents
from hangar.errors import HangarError, UsageError
from hangar.localrun.providers.args import flag_value, has_flag
from hangar.localrun.providers.base import PlanHandoff
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.jsonl_tail import JsonlTail
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage

SOURCE = "cursor-jsonl"
PLAN_TOOL = "CreatePlan"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{7,}$")


def transcript_dir(env: Mapping[str, str], cwd: Path) -> Path:
    root = agents()["cursor"].resolve_home(env).root
    return root / "projects" / str(cwd).strip("/").replace("/", "-") / "agent-transcripts"


class CursorReader(SessionReader):
    def __init__(self, folder: Path, chat_id: str, *, from_end: bool = False) -> None:
        """``from_end``: the chat existed before this run (the user's ``--resume ID``), so its
        lines so far are not this run's; they keep their numbers (keys stay stable)."""
        self.session_id = chat_id
        self.from_end = from_end
        self.candidates = (folder / chat_id / f"{chat_id}.jsonl", folder / f"{chat_id}.jsonl")
        self.tail = JsonlTail()
        self.pending: tuple[int, str] | None = None
        self.turn_key = ""
        self.commentable = False
        self.plans: dict[str, str] = {}
        self.unanswered: list[str] = []
        """Names of the calls still waiting for a result, oldest first: Cursor's results carry
        no call id, so a result is named after the oldest unanswered call."""

    def _key(self, line: int, suffix: str) -> str:
        return f"cursor:chat:{self.session_id}:line:{line}:{suffix}"

    def _message(self, kind: MessageType, line: int, suffix: str, **fields: Any) -> RunMessage:
        data = dict(fields.pop("input", {}) or {})
        data.setdefault("session_id", self.session_id)
        if self.turn_key:
            data.setdefault("turnKey", self.turn_key)
        return RunMessage(kind, SOURCE, self._key(line, suffix), input=data, **fields)

    def read(self) -> list[Seen]:
        if self.tail.path is None:
            self.tail.path = next((p for p in self.candidates if p.exists()), None)
            if self.tail.path is not None and self.from_end:
                self._skip_existing(self.tail.path)
        out: list[Seen] = []
        for line, record in self.tail.records():
            out.extend(self._record(line, record))
        return out

    def _skip_existing(self, path: Path) -> None:
        try:
            data = path.read_bytes()
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # an unfinished last line is read when it is done
        self.tail.offset = end
        self.tail.line = data.count(b"\n", 0, end)

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
            status = record.get("status")
            if status in (None, "", "success", "completed", "done"):
                return self._flush(final=True)
            # A turn that ended otherwise failed: its text so far is no answer.
            text = str(record.get("error") or f"the turn ended: {status}")
            error = self._message("error", line, "turn-ended", content=text)
            return [*self._flush(final=False), Seen((error,))]
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
                tool = self.unanswered.pop(0) if self.unanswered else None
                result = self._message(
                    "tool_result", line, f"tool-result:{n}", output=output, tool=tool
                )
                out.append(Seen((result,)))
        texts = [str(b.get("text")) for b in blocks if b.get("type") == "text" and b.get("text")]
        if not texts:
            return out
        text = "\n".join(texts)
        query = _QUERY.search(text)
        text = (query.group(1) if query else text).strip()
        out.extend(self._flush(final=False))
        self.turn_key = self._key(line, "turn")
        slash = parse_slash(text)
        self.commentable = bool(text) and not (slash is not None and not slash.args)
        if self.commentable:
            data: dict[str, Any] = {}
            if slash is not None:
                data = {"command": True, "slash_command": slash.name, "slash_args": slash.args}
            message = self._message("user_input", line, "user", content=text, input=data)
            out.append(Seen((message,)))
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
                self.unanswered.append(name)
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
    headless_flags = ("-p", "--print", "--output-format", "--stream-partial-output")
    subcommands = ("create-chat", "ls", "resume", "login", "logout", "status", "whoami",
                   "mcp", "update", "upgrade", "install-shell-integration",
                   "uninstall-shell-integration", "help")  # fmt: skip

    def validate(self, args: Sequence[str]) -> None:
        """Refuse what leaves no TUI to follow: headless flags, subcommands, and a
        ``--resume`` without a chat id (hangar follows exactly one chat's transcript)."""
        super().validate(args)
        for arg in args[1:]:
            if arg.split("=", 1)[0] in self.headless_flags:
                raise UsageError(
                    f"`{arg}` runs Cursor without its TUI; `hangar run -- cursor-agent` keeps "
                    "the TUI in your terminal (headless flags: "
                    + ", ".join(self.headless_flags)
                    + ")"
                )
        if len(args) > 1 and args[1] in self.subcommands:
            raise UsageError(
                f"`cursor-agent {args[1]}` runs no TUI hangar can follow; use `hangar run "
                "ISSUE -- cursor-agent [--resume CHAT_ID] …`"
            )
        given = any(a == "--resume" or a.startswith("--resume=") for a in args[1:])
        chat = flag_value(args, ("--resume",))
        if given and (chat is None or not _ID.match(chat)):
            raise UsageError(
                "`--resume` needs the chat id with `hangar run -- cursor-agent` (hangar "
                "follows exactly that chat's transcript): `--resume CHAT_ID`"
            )

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        argv = list(args)
        chat_id = flag_value(args, ("--resume",))
        resumed = chat_id is not None
        if chat_id is None:
            chat_id = _create_chat(args[0], cwd, env)
            argv += ["--resume", chat_id]
        if discussion and not has_flag(args, "--mode", "--plan"):
            argv.append("--mode=plan")  # LR-222
        reader = CursorReader(transcript_dir(env, cwd), chat_id, from_end=resumed)
        return Prepared(argv, reader)

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
