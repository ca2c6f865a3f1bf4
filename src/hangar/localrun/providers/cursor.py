"""The Cursor agent provider: native TUI, events from the transcript of a chat hangar names.

Cursor's CLI offers no event stream and no hook a run can set without editing the user's
own configuration, only transcript files (LR-177). So the run names its chat explicitly:
``cursor-agent create-chat`` prints a new chat id, and the TUI starts as ``cursor-agent
--resume ID ARGS…``; with the user's own ``--resume ID`` that chat is followed instead, from
its end at the start of the run (older lines are not this run's). The transcript followed is
exactly ``<Cursor home>/projects/*/agent-transcripts/ID/ID.jsonl`` (or the flat
``ID.jsonl``) — never the newest file of a folder — so a chat started in another terminal in
the same folder is never read (LR-172, LR-173). Mapping:
:mod:`hangar.localrun.providers.cursor_events`.

Not followed: a new chat started inside the TUI (its id is nowhere hangar can verify it).
Cursor has no option to add instructions, so the issue context is not injected; the agent
has ``HANGAR_ISSUE_KEY`` and the run's read-only ``hangar issue`` access in its environment.
Refused: ``-p``/``--print``, ``--output-format`` (no TUI), a bare ``--resume`` (which chat is
not known), and subcommands that are no TUI (``create-chat``, ``ls``, ``login``, …).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from hangar.agents.registry import agents
from hangar.errors import UsageError
from hangar.localrun.providers.base import MessageSink, Provider, UsageSink
from hangar.localrun.providers.cursor_events import CursorTranscriptMapper
from hangar.localrun.providers.jsonl_follow import JsonlFollower, Poller
from hangar.localrun.pty_runner import ChildCommand
from hangar.localrun.sidecar import SidecarError

POLL_INTERVAL = 0.25
CREATE_TIMEOUT = 60.0
_CHAT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{7,127}$")


def resume_value(args: Sequence[str]) -> str | None:
    """The chat id of ``--resume ID`` / ``--resume=ID`` in ``args``, if any."""
    for index, arg in enumerate(args):
        if arg.startswith("--resume="):
            return arg.split("=", 1)[1]
        if arg == "--resume" and index + 1 < len(args):
            return args[index + 1]
    return None


def find_transcript(home: Path, chat: str) -> Path | None:
    """The transcript of exactly ``chat`` under Cursor's ``projects`` folder, once it exists."""
    for pattern in (
        f"*/agent-transcripts/{chat}/{chat}.jsonl",
        f"*/agent-transcripts/{chat}.jsonl",
    ):
        for path in sorted((home / "projects").glob(pattern)):
            if path.is_file():
                return path
    return None


class CursorProvider(Provider):
    name = "cursor"
    executables = ("cursor-agent",)
    headless_flags = ("-p", "--print", "--output-format", "--stream-partial-output")
    subcommands = ("create-chat", "ls", "resume", "login", "logout", "status", "whoami",
                   "mcp", "update", "upgrade", "install-shell-integration",
                   "uninstall-shell-integration", "help")  # fmt: skip

    def validate(self, args: Sequence[str]) -> None:
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
        chat = resume_value(args)
        given = "--resume" in args or any(a.startswith("--resume=") for a in args)
        if given and (chat is None or not _CHAT_ID.match(chat)):
            raise UsageError(
                "`--resume` needs the chat id with `hangar run -- cursor-agent` (hangar "
                "follows exactly that chat's transcript): `--resume CHAT_ID`"
            )

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        home, _ = agents()["cursor"].home.resolve(env)
        chat = resume_value(args)
        argv = list(args)
        if chat is None:
            chat = self._create_chat(args[0], cwd, env)
            argv = [args[0], "--resume", chat, *args[1:]]
        existing = find_transcript(home, chat)
        follower = JsonlFollower.from_end(existing) if existing else None
        mapper = CursorTranscriptMapper(reporter, chat)

        def tick() -> None:
            nonlocal follower
            if follower is None:
                path = find_transcript(home, chat)
                follower = JsonlFollower(path) if path else None
            for offset, record in follower.read_located() if follower else ():
                mapper.feed(offset, record)

        with Poller(POLL_INTERVAL, tick, "hangar-cursor-transcript"):
            code = self.runner.run(ChildCommand(argv, cwd, env))
        tick()  # what the CLI wrote just before it ended
        mapper.close()
        return code

    @staticmethod
    def _create_chat(exe: str, cwd: Path, env: Mapping[str, str]) -> str:
        try:
            done = subprocess.run(
                [exe, "create-chat"],
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=CREATE_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SidecarError(command=f"{exe} create-chat", problem=str(exc)) from None
        lines = done.stdout.decode("utf-8", "replace").split()
        chat = lines[-1] if lines else ""
        if done.returncode != 0 or not _CHAT_ID.match(chat):
            problem = done.stderr.decode("utf-8", "replace")[-500:] or f"printed {chat!r}"
            raise SidecarError(command=f"{exe} create-chat", problem=problem)
        return chat
