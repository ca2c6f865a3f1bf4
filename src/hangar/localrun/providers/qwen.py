"""The Qwen Code provider (``qwen``), following the chats of the run's own Qwen process.

Session (LR-177): ``qwen --session-id UUID`` starts a new session with exactly that id, and
Qwen writes it as ``<Qwen runtime folder>/projects/<project>/chats/UUID.jsonl`` (the runtime
folder is ``$QWEN_RUNTIME_DIR`` when set, else the Qwen home, ``$QWEN_HOME`` or ``~/.qwen``).
hangar passes a new id unless you gave one (``--session-id UUID``, or ``--resume UUID`` to go
on with a session, read from its end at the start of the run). Session switches inside the
run (``/clear``, ``/resume``) are followed through the record Qwen keeps for the live process
(``<Qwen home>/sessions/PID.json``), bound to the run's process id: see :mod:`.qwen_events`.
A Qwen started in another terminal is never read (LR-172, LR-173). hangar starts no sidecar
and writes no file: Qwen removes its process record itself.

The issue context goes in with ``--append-system-prompt`` (unless you gave one), never as user
input (LR-163).

Refused (LR-186): ``-p``/``--prompt``, a positional prompt (Qwen runs it one-shot, without its
TUI: use ``-i PROMPT``) and ``--acp``; a bare ``--resume`` (the picker) and ``-c``/
``--continue`` (Qwen would pick the session; hangar could not tell which); ``--fork-session``
(a new id hangar does not know); ``--no-chat-recording`` (no chat to read); the subcommands
(``mcp``, ``serve``, ``sessions``, …).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from hangar.agents.registry import agents
from hangar.errors import UsageError
from hangar.localrun.providers.args import flag_value, has_flag, id_value, named_session
from hangar.localrun.providers.base import DiscussionHooks
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.qwen_events import Mapped, QwenSessions

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
SUBCOMMANDS = ("auth", "board", "channel", "extensions", "hooks", "mcp", "review", "sandbox",
               "serve", "sessions", "update")  # fmt: skip
HEADLESS_FLAGS = ("-p", "--prompt", "--acp")
VALUE_FLAGS = frozenset(
    {
        "--telemetry-target", "--telemetry-otlp-endpoint", "--telemetry-otlp-protocol",
        "--telemetry-outfile", "--proxy", "-m", "--model", "--fallback-model", "-p", "--prompt",
        "-i", "--prompt-interactive", "--system-prompt", "--append-system-prompt",
        "--output-style", "--sandbox-image", "--approval-mode", "--channel",
        "--allowed-mcp-server-names", "--mcp-config", "--allowed-tools", "-e", "--extensions",
        "--include-directories", "--add-dir", "--openai-logging-dir", "--openai-api-key",
        "--openai-base-url", "--input-format", "-o", "--output-format", "--json-fd",
        "--json-file", "--json-schema", "--input-file", "-r", "--resume", "--session-id",
        "--worktree", "--max-session-turns", "--max-wall-time", "--max-tool-calls",
        "--max-subagent-depth", "--core-tools", "--exclude-tools", "--disabled-slash-commands",
        "--auth-type",
    }
)  # fmt: skip
"""Qwen Code 0.24.4's options that take a value (its ``--help``): one word after each."""


def home(env: Mapping[str, str]) -> Path:
    return agents()["qwen"].resolve_home(env).root


def runtime_root(env: Mapping[str, str]) -> Path:
    runtime = env.get("QWEN_RUNTIME_DIR")
    return Path(runtime).expanduser() if runtime else home(env)


def positional(args: Sequence[str]) -> str | None:
    """The first word of ``args`` that is no option and no option's value (a prompt)."""
    index = 1
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return args[index + 1] if index + 1 < len(args) else None
        if not arg.startswith("-"):
            return arg
        index += 1
        takes_value = "=" not in arg and arg in VALUE_FLAGS
        if takes_value and index < len(args) and not args[index].startswith("-"):
            index += 1
    return None


def _seen(mapped: Mapped) -> list[Seen]:
    if not mapped.messages and not mapped.usage:
        return []
    return [Seen(tuple(mapped.messages), usage=tuple(mapped.usage))]


class QwenReader(SessionReader):
    def __init__(self, sessions: QwenSessions) -> None:
        self.sessions = sessions
        self.session_id = sessions.session

    def started(self, pid: int) -> None:
        self.sessions.started(pid)

    def read(self) -> list[Seen]:
        found = _seen(self.sessions.read())
        self.session_id = self.sessions.session
        return found

    def finish(self) -> list[Seen]:
        return _seen(self.sessions.read(ended=True))


class QwenProvider(FollowedProvider):
    name = "qwen"
    executables = ("qwen",)
    supports_discussion = False

    def validate(self, args: Sequence[str]) -> None:
        super().validate(args)
        if len(args) > 1 and args[1] in SUBCOMMANDS:
            raise UsageError(
                f"`qwen {args[1]}` runs no TUI hangar can follow; use `hangar run ISSUE -- "
                "qwen [--resume SESSION_ID] …`"
            )
        for arg in args[1:]:
            if arg.split("=", 1)[0] in HEADLESS_FLAGS:
                raise UsageError(
                    f"`{arg}` runs Qwen Code without its TUI; `hangar run -- qwen` keeps the TUI "
                    "in your terminal (headless flags: " + ", ".join(HEADLESS_FLAGS) + ")"
                )
        prompt = positional(args)
        if prompt is not None:
            raise UsageError(
                f"`{prompt}` would be a prompt Qwen Code runs one-shot, without its TUI; give "
                "a first prompt with `-i PROMPT` (a list option takes `--flag=a,b`)"
            )
        if has_flag(args, "-c", "--continue") or (
            has_flag(args, "--resume", "-r") and id_value(args, _UUID, "--resume", "-r") is None
        ):
            raise UsageError(
                "`hangar run -- qwen` follows exactly one session: resume it by its id "
                "(`--resume SESSION_ID`), not by `--continue` or a bare `--resume`"
            )
        if has_flag(args, "--session-id") and id_value(args, _UUID, "--session-id") is None:
            raise UsageError("`--session-id` needs a session id (a UUID)")
        if has_flag(args, "--fork-session"):
            raise UsageError(
                "`--fork-session` gives the session a new id hangar cannot know; resume it "
                "without forking, or fork it outside hangar first"
            )
        recording = flag_value(args, ("--chat-recording",))
        if has_flag(args, "--no-chat-recording") or (recording or "").lower() == "false":
            raise UsageError("`hangar run -- qwen` reads Qwen's chat: keep chat recording on")

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        named = named_session(args, _UUID)
        argv = named.argv
        if not has_flag(args, "--append-system-prompt"):
            argv = [*argv, "--append-system-prompt", self.issue.prompt()]
        sessions = QwenSessions(
            runtime_root(env), home(env), named.session_id, from_end=named.resumed
        )
        return Prepared(argv, QwenReader(sessions))

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        raise UsageError("`qwen` cannot take part in a discussion yet")
