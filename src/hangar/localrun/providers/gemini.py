"""The Gemini CLI provider (``gemini``), following the chat files of the sessions its process
names.

Session (LR-177): ``gemini --session-id UUID`` starts a new session with exactly that id, and
Gemini writes it as ``<Gemini home>/tmp/<project>/chats/session-<time>-<UUID[:8]>.jsonl``
(``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini``), its first line naming the ``sessionId``.
hangar passes a new id unless you gave one (``--session-id UUID``, or ``--resume UUID`` to go
on with a session, read from its end at the start of the run), so the file followed is known
by its id and a session started in another terminal is never read (LR-172, LR-173). The
mapping is :mod:`.gemini_events`.

Session switches (LR-179): ``/clear`` (``/new``) gives the process a new session id and file;
``/resume`` (``/chat``) a picked session's id, appending ``{"$set": {"sessionId": ID}}`` to its
file. hangar learns each from Gemini's own OpenTelemetry log, written to a private file it
names in the child's environment (``GEMINI_TELEMETRY_OUTFILE``, target ``local``, prompts not
logged): every log record carries the process's current ``session.id``, and its resource the
``session.id`` the process started with, which tells the run's process from a ``gemini`` its
tools started with the same environment. A new session is read from its start, a resumed one
from that record (:mod:`.session_switch`); a session that started before the run is read only
once that record is there. The file is local: with an outfile Gemini sets up
no network exporter.

Why not Gemini's hooks (``SessionStart``/``AfterAgent`` name ``session_id`` and
``transcript_path``): hangar could only add them without writing your settings through a
*system* settings file (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``), and Gemini 0.61 skips one that
is not owned by root in root-owned folders writable by no one else.

Refused (LR-186): ``-p``/``--prompt`` and ``--acp``/``--experimental-acp`` (no TUI); a bare
``--resume`` or ``--resume latest``/``--resume N`` (Gemini would pick the session; hangar
could not tell which) and ``--session-file``; the subcommands without a TUI (``mcp``,
``extensions``, ``skills``, ``hooks``). Gemini has no option for extra instructions, so the
issue context is not injected (the agent has ``HANGAR_ISSUE_KEY`` and read-only ``hangar
issue`` access).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hangar.agents.registry import agents
from hangar.errors import UsageError
from hangar.localrun.providers.args import has_flag, id_value, named_session
from hangar.localrun.providers.base import DiscussionHooks
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.gemini_events import GeminiSessionFile, Mapped, started_before
from hangar.localrun.providers.otel_file import OtelFile
from hangar.localrun.providers.session_switch import SwitchingReader

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


def telemetry_env(outfile: Path) -> dict[str, str]:
    """What makes Gemini log its OpenTelemetry records to ``outfile`` only (no exporter on
    the network: an outfile replaces OTLP and Cloud targets)."""
    return {
        "GEMINI_TELEMETRY_ENABLED": "true",
        "GEMINI_TELEMETRY_TARGET": "local",
        "GEMINI_TELEMETRY_OUTFILE": str(outfile),
        "GEMINI_TELEMETRY_LOG_PROMPTS": "false",
        "GEMINI_TELEMETRY_USE_COLLECTOR": "false",
    }


def _resource_session(record: Mapping[str, Any]) -> str:
    """The ``session.id`` of the record's resource: Gemini 0.61's file exporter writes the
    SDK's resource object as it is, its attributes as ``_rawAttributes`` pairs."""
    resource = record.get("resource")
    pairs = resource.get("_rawAttributes") if isinstance(resource, dict) else None
    for pair in pairs if isinstance(pairs, list) else []:
        if isinstance(pair, list) and len(pair) == 2 and pair[0] == "session.id":
            return str(pair[1])
    return ""


class SessionNames:
    """The sessions the run's Gemini process names in its telemetry file, in order: log
    records (not metrics) whose resource names the session the process started with."""

    def __init__(self, outfile: Path, started_with: str) -> None:
        self.file = OtelFile(outfile)
        self.started_with = started_with

    def __call__(self) -> list[str]:
        names: list[str] = []
        for record in self.file.records():
            attributes = record.get("attributes")
            if not isinstance(attributes, dict) or _resource_session(record) != self.started_with:
                continue  # a metric, or a gemini the agent's tools started
            session = attributes.get("session.id")
            if isinstance(session, str) and _UUID.match(session) and session not in names[-1:]:
                names.append(session)
        return names


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
        root = chats_root(env)
        first = GeminiReader(GeminiSessionFile(root, named.session_id, from_end=named.resumed))
        folder = Path(tempfile.mkdtemp(prefix="hangar-gemini-"))  # 0700: the run's own
        outfile = folder / "telemetry.json"
        run_start = time.time()

        def open_session(session: str) -> GeminiReader | None:
            chat = GeminiSessionFile(root, session, from_end=False, from_resume=True)
            if not chat.open():
                return None
            assert chat.chat is not None
            if not chat.resumed and started_before(chat.chat.path, run_start):
                return None  # resumed, its resume record not written yet: read from there
            return GeminiReader(chat)

        reader = SwitchingReader(first, SessionNames(outfile, named.session_id), open_session)
        return Prepared(
            named.argv,
            reader,
            cleanup=lambda: shutil.rmtree(folder, ignore_errors=True),
            env={**env, **telemetry_env(outfile)},
        )

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        raise UsageError("`gemini` cannot take part in a discussion yet")
