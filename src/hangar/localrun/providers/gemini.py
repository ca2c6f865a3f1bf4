"""The Gemini CLI provider (``gemini``): its TUI in your terminal, the chats its hooks name.

Source (LR-176): Gemini CLI 0.61 fires hooks with ``session_id`` and ``transcript_path`` (its
chat file, ``~/.gemini/tmp/<project>/chats/session-*.jsonl``). hangar adds two command hooks,
``SessionStart`` (start, ``/resume``, ``/clear``: a new session) and ``AfterAgent`` (a turn
ended), in a temporary *system* settings file named by ``GEMINI_CLI_SYSTEM_SETTINGS_PATH``.
Gemini merges system settings over the user's and workspace's and concatenates hook lists,
so the user's own settings and hooks stay in force and no file of the user is written; a
system settings file already in force (that variable, or ``/etc/gemini-cli/settings.json``)
is copied into the temporary one first (and ``GEMINI_CLI_SYSTEM_DEFAULTS_PATH`` keeps
pointing at the defaults beside it). The hook runs ``python -m hangar __session-hook``,
which forwards the payload to a loopback hook server carrying the run's secret
(:mod:`.hook_server`), so a Gemini started in another terminal is never read (LR-173). The
reader (:mod:`.gemini_events`) follows the sessions reported, in order (LR-180, LR-181).

Refused (LR-186): ``-p``/``--prompt`` and ``--acp``/``--experimental-acp`` (no TUI), and the
subcommands without one (``mcp``, ``extensions``, ``skills``, ``hooks``). Gemini has no
option for extra instructions, so the issue context is not injected (the agent has
``HANGAR_ISSUE_KEY`` and read-only ``hangar issue`` access). The settings folder and the hook
server live exactly as long as the CLI (LR-129).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hangar.errors import UsageError
from hangar.localrun.providers.base import DiscussionHooks
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader
from hangar.localrun.providers.gemini_events import GeminiSessions
from hangar.localrun.providers.hook_server import SessionHookServer

SYSTEM_SETTINGS = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
SYSTEM_DEFAULTS = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"
DEFAULT_SYSTEM_SETTINGS = Path("/etc/gemini-cli/settings.json")
DEFAULTS_NAME = "system-defaults.json"
HOOK_EVENTS = ("SessionStart", "AfterAgent")


class GeminiReader(SessionReader):
    def __init__(self, sessions: GeminiSessions) -> None:
        self.sessions = sessions

    def read(self) -> list[Seen]:
        mapped = self.sessions.read()
        self.session_id = self.sessions.session_id
        if not mapped.messages and not mapped.usage:
            return []
        return [Seen(tuple(mapped.messages), usage=tuple(mapped.usage))]


def system_settings_path(env: Mapping[str, str]) -> Path:
    """The system settings file Gemini would read without hangar."""
    given = env.get(SYSTEM_SETTINGS)
    return Path(given) if given else DEFAULT_SYSTEM_SETTINGS


def system_settings(env: Mapping[str, str], hook_command: str) -> dict[str, Any]:
    """The system settings in force (if any) with hangar's hooks added to theirs."""
    source = system_settings_path(env)
    settings: dict[str, Any] = {}
    if source.is_file():
        try:
            loaded = json.loads(source.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(
                f"cannot read Gemini's system settings {source} ({exc}); hangar adds its "
                "session hooks to them"
            ) from exc
        if not isinstance(loaded, dict):
            raise UsageError(f"Gemini's system settings {source} are not a JSON object")
        settings = loaded
    hooks = dict(settings.get("hooks") or {})
    for event in HOOK_EVENTS:
        entry = {
            "matcher": "*",
            "hooks": [{"type": "command", "name": f"hangar-{event}", "command": hook_command,
                       "timeout": 30000}],
        }  # fmt: skip
        hooks[event] = [*list(hooks.get(event) or []), entry]
    return {**settings, "hooks": hooks}


class GeminiProvider(FollowedProvider):
    name = "gemini"
    executables = ("gemini",)
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
                "gemini [--resume ID] …`"
            )

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        sessions = GeminiSessions()
        server = SessionHookServer(sessions.report)
        settings = system_settings(env, server.shell_command())
        folder = Path(tempfile.mkdtemp(prefix="hangar-gemini-"))  # 0700
        path = folder / "system-settings.json"
        path.touch(0o600)
        path.write_text(json.dumps(settings), encoding="utf-8")
        server.__enter__()

        def cleanup() -> None:
            server.__exit__(None, None, None)
            shutil.rmtree(folder, ignore_errors=True)

        child = {**env, SYSTEM_SETTINGS: str(path)}
        if SYSTEM_DEFAULTS not in env:  # Gemini looks for them next to the system settings
            child[SYSTEM_DEFAULTS] = str(system_settings_path(env).with_name(DEFAULTS_NAME))
        return Prepared(list(args), GeminiReader(sessions), cleanup=cleanup, env=child)

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        raise UsageError("`gemini` cannot take part in a discussion yet")
