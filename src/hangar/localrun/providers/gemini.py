"""The Gemini CLI provider (``gemini``), following the chat file of the session it names.

Session (LR-177): ``gemini --session-id UUID`` starts a new session with exactly that id, and
Gemini writes it as ``<Gemini home>/tmp/<project>/chats/session-<time>-<UUID[:8]>.jsonl``
(``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini``), its first line naming the ``sessionId``.
hangar passes a new id unless you gave one (``--session-id UUID``, or ``--resume UUID`` to go
on with a session, read from its end at the start of the run), so the file followed is known
by its id and a session started in another terminal is never read (LR-172, LR-173). The
mapping is :mod:`.gemini_events`.

Why not Gemini's hooks (``SessionStart``/``AfterAgent`` name ``session_id`` and
``transcript_path``): hangar could only add them without writing your settings through a
*system* settings file (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``), and Gemini 0.61 skips one that
is not owned by root in root-owned folders writable by no one else.

Refused (LR-186): ``-p``/``--prompt`` and ``--acp``/``--experimental-acp`` (no TUI); a bare
``--resume`` or ``--resume latest``/``--resume N`` (Gemini would pick the session; hangar
could not tell which) and ``--session-file``; the subcommands without a TUI (``mcp``,
``extensions``, ``skills``, ``hooks``). Not followed: a new session started inside the TUI
(``/clear``, ``/resume``). Gemini has no option for extra instructions, so the issue context
is not injected (the agent has ``HANGAR_ISSUE_KEY`` and read-only ``hangar issue`` access).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from hangar.agents.registry import agents
from hangar.errors import UsageError
from hangar.localrun.providers.args import has_flag, id_value, named_session
from hangar.localrun.providers.base import DiscussionHooks
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.gemini_events import GeminiSessionFile, Mapped

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def chats_root(env: Mapping[str, str]) -> Path:
    return agents()["gemini"].resolve_home(env).root / "tmp"


def _seen(mapped: Mapped) -> list[Seen]:
    if not mapped.messages and not mapped.usage:
        return []
    return [Seen(tuple(mapped.messages), usage=tuple(mapped.usage))]


class GeminiReader(SessionReader):
    def __init__(self, session: GeminiSessionFile) -> None:
        self.session = session
        self.session_id = session.session

    def read(self) -> list[Seen]:
        return _seen(self.session.read())

    def finish(self) -> list[Seen]:
        return _seen(self.session.read(ended=True))


class GeminiProvider(FollowedProvider):
    name = "gemini"
    executables = ("gemini",)
    owned_flags = ("--session-file",)
    supports_discussion = False
    headless_flags = ("-p", "--prompt", "--acp", "--experimental-acp")
    subcommands = ("mcp", "extensions", "extension", "skills", "skill", "hooks", "hook")

    def validate(self, args: Sequence[str]) -> None:
        super().validate(args)
        for arg in args[1:]:
            if arg.split("=", 1)[0] in self.headless_flags:
                raise UsageError(
                    f"`{arg}` runs Gemini without its TUI; `hangar run -- gemini` keeps the "
                    "TUI in your terminal (headless flags: " + ", ".join(self.headless_flags) + ")"
                )
        if len(args) > 1 and args[1] in self.subcommands:
            raise UsageError(
                f"`gemini {args[1]}` runs no TUI hangar can follow; use `hangar run ISSUE -- "
                "gemini [--resume SESSION_ID] …`"
            )
        if has_flag(args, "--resume", "-r") and id_value(args, _UUID, "--resume", "-r") is None:
            raise UsageError(
                "`hangar run -- gemini` follows exactly one session: resume it by its id "
                "(`--resume SESSION_ID`), not by `latest`, an index or a bare `--resume`"
            )
        if has_flag(args, "--session-id") and id_value(args, _UUID, "--session-id") is None:
            raise UsageError("`--session-id` needs a session id (a UUID)")

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        named = named_session(args, _UUID)
        reader = GeminiSessionFile(chats_root(env), named.session_id, from_end=named.resumed)
        return Prepared(named.argv, GeminiReader(reader))

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        raise UsageError("`gemini` cannot take part in a discussion yet")
