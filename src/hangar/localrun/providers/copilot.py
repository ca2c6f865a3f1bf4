"""The Copilot CLI provider (``copilot``), following the event log of the session it names.

Session (LR-177): ``copilot --session-id ID`` starts a new session with exactly that id, and
Copilot writes it as ``<Copilot home>/session-state/ID/events.jsonl`` (``$COPILOT_HOME`` or
``~/.copilot``), one event per line, appended. hangar passes a new id unless you gave one
(``--session-id ID``, or ``--resume ID``/``--resume=ID`` to go on with a session, read from
its end at the start of the run), so the file followed is known before Copilot writes a line
and a session started in another terminal is never read (LR-172, LR-173). Refused (LR-186):
``-p``/``--prompt`` and ``--acp`` (no TUI), and a bare ``--resume``/``--continue`` (Copilot
would pick the session; hangar could not tell which). Copilot has no option for extra
instructions, so the issue context is not injected (the agent has ``HANGAR_ISSUE_KEY`` and
read-only ``hangar issue`` access).

Session switches (LR-179): ``/clear`` (``/new``) starts a session with a new id and folder;
``/resume ID`` goes on with one, appending a ``session.resume`` event to its log. hangar
learns each from Copilot's own OpenTelemetry spans, written as JSON lines to a private file it
names in the child's environment (``COPILOT_OTEL_FILE_EXPORTER_PATH``, exporter ``file``):
each span carries the session as ``gen_ai.conversation.id``. Copilot leaves its
``COPILOT_OTEL_*`` variables out of the environment of the shell commands it runs, so only the
run's process writes there. A session is followed once its log's ``session.start`` names it:
a new one from its start, a resumed one from its last ``session.resume`` event
(:mod:`.session_switch`). Spans are written as they end, so a switch shows once the new
session's first model request is answered.

Events (Copilot 1.0.102, each with its own ``id``): ``user.message`` → ``user_input`` (a bare
slash command: nothing; with arguments: ``command``); ``assistant.message`` text → ``text``,
``final`` when it asks for no tool and its turn is commentable; its ``toolRequests`` →
``tool_use`` with Copilot's tool name (``bash``, ``view``, …); ``tool.execution_complete`` →
``tool_result``; ``session.error`` → ``error``; ``session.usage_record`` → usage.
sourceKeys: ``copilot:session:ID:event:EVENT:{user|text|final|error|tool-use:CALL|tool-result}``.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hangar.agents.registry import agents
from hangar.errors import UsageError
from hangar.localrun.providers.args import has_flag, id_value, named_session
from hangar.localrun.providers.base import DiscussionHooks
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.jsonl_tail import JsonlTail
from hangar.localrun.providers.otel_file import OtelFile
from hangar.localrun.providers.session_switch import SwitchingReader
from hangar.localrun.providers.slash import parse_slash
from hangar.model.run_messages import MessageType, RunMessage, UsageEntry

SOURCE = "copilot-events"
PROVIDER = "copilot"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{7,127}$")


def events_file(env: Mapping[str, str], session: str) -> Path:
    root = agents()["copilot"].resolve_home(env).root
    return root / "session-state" / session / "events.jsonl"


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _first_event(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            record = json.loads(handle.readline(1 << 20))
    except (OSError, ValueError):
        return {}
    return _map(record)


def _after_last_resume(path: Path) -> int:
    """The offset after the last ``session.resume`` event (Copilot appends one each time it
    resumes the session), or 0 for a session that was never resumed."""
    offset = after = 0
    try:
        with path.open("rb") as handle:
            for line in handle:
                offset += len(line)
                if b'"session.resume"' in line and line.endswith(b"\n"):
                    try:
                        resumed = json.loads(line).get("type") == "session.resume"
                    except (ValueError, AttributeError):
                        continue
                    after = offset if resumed else after
    except OSError:
        return 0
    return after


class CopilotReader(SessionReader):
    def __init__(
        self, path: Path, session: str, *, from_end: bool, from_resume: bool = False
    ) -> None:
        self.session_id = session
        offset = path.stat().st_size if from_end and path.exists() else 0
        if from_resume:
            offset = _after_last_resume(path)
        self.tail = JsonlTail(path, offset)
        self.commentable = False
        self.turn_key = ""
        self.tools: dict[str, str] = {}

    def _message(self, kind: MessageType, event: str, suffix: str, **fields: Any) -> RunMessage:
        data = {"session_id": self.session_id, **fields.pop("input", {})}
        if self.turn_key:
            data["turnKey"] = self.turn_key
        key = f"copilot:session:{self.session_id}:event:{event}:{suffix}"
        return RunMessage(kind, SOURCE, key, input=data, **fields)

    def read(self) -> list[Seen]:
        out: list[Seen] = []
        for _, record in self.tail.records():
            event = str(record.get("id") or "")
            if event:
                out.extend(self._event(event, str(record.get("type")), _map(record.get("data"))))
        return out

    def _event(self, event: str, kind: str, data: dict[str, Any]) -> list[Seen]:
        if kind == "user.message":
            text = str(data.get("content") or "").strip()
            self.turn_key = f"copilot:session:{self.session_id}:event:{event}"
            slash = parse_slash(text)
            self.commentable = bool(text) and (slash is None or bool(slash.args))
            if not self.commentable:
                return []  # a bare slash command is not user input (LR-164)
            extra = {"command": True, "commentable": True} if slash is not None else {}
            return [Seen((self._message("user_input", event, "user", content=text, input=extra),))]
        if kind == "assistant.message":
            messages: list[RunMessage] = []
            requests = [_map(r) for r in data.get("toolRequests") or []]
            text = str(data.get("content") or "")
            if text.strip():
                final = not requests and self.commentable
                suffix: MessageType = "final" if final else "text"
                messages.append(self._message(suffix, event, suffix, content=text))
            for request in requests:
                call = str(request.get("toolCallId") or "")
                name = str(request.get("name") or "unknown")
                self.tools[call] = name
                data_in = {"tool_call_id": call, "input": _map(request.get("arguments"))}
                messages.append(
                    self._message("tool_use", event, f"tool-use:{call}", tool=name, input=data_in)
                )
            return [Seen(tuple(messages))]
        if kind == "tool.execution_complete":
            call = str(data.get("toolCallId") or "")
            output = str(_map(data.get("result")).get("content") or "")
            ok = data.get("success") is True
            message = self._message(
                "tool_result", event, "tool-result", tool=self.tools.get(call, "unknown"),
                output=output, input={"tool_call_id": call, "success": ok},
            )  # fmt: skip
            return [Seen((message,))]
        if kind == "session.error":
            text = str(data.get("message") or "error")
            return [Seen((self._message("error", event, "error", content=text),))]
        if kind == "session.usage_record":
            usage = _map(data.get("usage"))
            entry = UsageEntry(
                PROVIDER,
                str(usage.get("model") or ""),
                _count(usage.get("inputTokens")),
                _count(usage.get("outputTokens")),
                _count(usage.get("cacheReadTokens")),
                _count(usage.get("cacheWriteTokens")),
            )
            return [Seen(usage=(entry,))]
        return []


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def telemetry_env(outfile: Path) -> dict[str, str]:
    """What makes Copilot write its OpenTelemetry signals to ``outfile`` only."""
    return {"COPILOT_OTEL_FILE_EXPORTER_PATH": str(outfile), "COPILOT_OTEL_EXPORTER_TYPE": "file"}


class SessionNames:
    """The sessions the run's Copilot process names in its telemetry file, in order (the
    ``gen_ai.conversation.id`` of its spans)."""

    def __init__(self, outfile: Path) -> None:
        self.file = OtelFile(outfile)

    def __call__(self) -> list[str]:
        names: list[str] = []
        for record in self.file.records():
            if record.get("type") != "span":
                continue
            session = _map(record.get("attributes")).get("gen_ai.conversation.id")
            if isinstance(session, str) and _ID.match(session) and session not in names[-1:]:
                names.append(session)
        return names


def open_switched(env: Mapping[str, str], session: str) -> CopilotReader | None:
    """The reader of a session the TUI switched to, once its log says it holds it."""
    path = events_file(env, session)
    start = _first_event(path)
    if start.get("type") != "session.start" or _map(start.get("data")).get("sessionId") != session:
        return None
    return CopilotReader(path, session, from_end=False, from_resume=True)


class CopilotProvider(FollowedProvider):
    name = "copilot"
    executables = ("copilot",)
    supports_discussion = False
    headless_flags = ("-p", "--prompt", "--acp")

    def validate(self, args: Sequence[str]) -> None:
        super().validate(args)
        for arg in args[1:]:
            if arg.split("=", 1)[0] in self.headless_flags:
                raise UsageError(
                    f"`{arg}` runs Copilot without its TUI; `hangar run -- copilot` keeps the "
                    "TUI in your terminal (headless flags: " + ", ".join(self.headless_flags) + ")"
                )
        if has_flag(args, "--continue") or (
            has_flag(args, "--resume", "-r") and id_value(args, _ID, "--resume", "-r") is None
        ):
            raise UsageError(
                "`hangar run -- copilot` follows exactly one session: resume it by id "
                "(`--resume=SESSION_ID`), not by `--continue` or a bare `--resume`"
            )
        if has_flag(args, "--session-id") and id_value(args, _ID, "--session-id") is None:
            raise UsageError("`--session-id` needs a session id (letters, digits and `-`)")

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        named = named_session(args, _ID)
        session = named.session_id
        first = CopilotReader(events_file(env, session), session, from_end=named.resumed)
        folder = Path(tempfile.mkdtemp(prefix="hangar-copilot-"))  # 0700: the run's own
        outfile = folder / "telemetry.jsonl"
        reader = SwitchingReader(
            first, SessionNames(outfile), lambda switched: open_switched(env, switched)
        )
        return Prepared(
            named.argv,
            reader,
            cleanup=lambda: shutil.rmtree(folder, ignore_errors=True),
            env={**env, **telemetry_env(outfile)},
        )

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        raise UsageError("`copilot` cannot take part in a discussion yet")
