"""The Continue CLI provider (``cn``): its TUI in your terminal, its own session files followed.

Source (LR-174, LR-176): cn 1.5.47 has no event stream a TUI can share (``cn serve`` is a
headless server whose remote TUI the CLI does not start), no hook it fires and no option
naming the session it writes; it saves each session as ``<Continue home>/sessions/<id>.json``
(``$CONTINUE_GLOBAL_DIR`` or ``~/.continue``), a new id after ``/clear`` (and a pick in
``/resume`` rewrites the current file with the picked history, see :mod:`.continue_cli_events`).
So hangar gives the ``cn`` process a session hook: Node loads
``continue_session_hook.cjs`` (``NODE_OPTIONS=--require …``), which appends one JSON line to
a run-private notice file after each write of a session file by *that* process. The reader
(:mod:`.continue_cli_events`) follows exactly the sessions named there (LR-181), several per run
(LR-180); a cn started in another terminal has no hook and its sessions are never named
(LR-173). The hook takes its variables out of the environment at once, so what cn starts
(the Bash tool, a node script) runs with the run's environment unchanged (LR-125).

The issue context is a rule file passed as ``--rule FILE`` (cn adds rules to its system
message; never a user message, LR-163). Refused (LR-186): headless ``-p``/``--print``,
``--format``, ``--silent``; ``--fork`` (the forked history is copied into a new file and
could not be told from the run's); subcommands without a TUI (``serve``, ``checks``,
``review``). The notice folder is removed when cn ends (LR-129).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from hangar.agents.registry import agents
from hangar.errors import UsageError
from hangar.localrun.providers.base import DiscussionHooks
from hangar.localrun.providers.continue_cli_events import ContinueSessions
from hangar.localrun.providers.followed import FollowedProvider, Prepared, Seen, SessionReader

HOOK = "continue_session_hook.cjs"


def sessions_dir(env: Mapping[str, str]) -> Path:
    return agents()["continue"].resolve_home(env).root / "sessions"


class ContinueReader(SessionReader):
    def __init__(self, notices: Path, sessions: Path) -> None:
        self.sessions = ContinueSessions(notices, sessions)

    def read(self) -> list[Seen]:
        mapped = self.sessions.read()
        self.session_id = self.sessions.current
        if not mapped.messages and not mapped.usage:
            return []
        return [Seen(tuple(mapped.messages), usage=tuple(mapped.usage))]


class ContinueProvider(FollowedProvider):
    name = "continue"
    executables = ("cn",)
    owned_flags = ("--fork",)
    supports_discussion = False
    headless_flags = ("-p", "--print", "--format", "--silent")
    subcommands = ("serve", "checks", "review")

    def validate(self, args: Sequence[str]) -> None:
        super().validate(args)
        for arg in args[1:]:
            if arg.split("=", 1)[0] in self.headless_flags:
                raise UsageError(
                    f"`{arg}` runs cn without its TUI; `hangar run -- cn` keeps the TUI in your "
                    "terminal (headless flags: " + ", ".join(self.headless_flags) + ")"
                )
        if len(args) > 1 and args[1] in self.subcommands:
            raise UsageError(
                f"`cn {args[1]}` runs no TUI hangar can follow; use `hangar run ISSUE -- cn "
                "[--resume] …`"
            )

    def prepare(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], discussion: bool
    ) -> Prepared:
        folder = Path(tempfile.mkdtemp(prefix="hangar-cn-"))  # 0700
        notices = folder / "notices.jsonl"
        notices.touch(0o600)
        rule = folder / "issue-context.md"
        rule.write_text(self.issue.prompt() + "\n", encoding="utf-8")
        sessions = sessions_dir(env)
        hook = Path(__file__).with_name(HOOK)
        child = dict(env)
        given = env.get("NODE_OPTIONS", "")
        child["HANGAR_CN_NODE_OPTIONS"] = given
        child["NODE_OPTIONS"] = f"{given} --require {_quoted(str(hook))}".strip()
        child["HANGAR_CN_NOTICES"] = str(notices)
        child["HANGAR_CN_SESSIONS"] = str(sessions)
        argv = [args[0], "--rule", str(rule), *args[1:]]  # args[0] as given (LR-123)
        return Prepared(
            argv,
            ContinueReader(notices, sessions),
            cleanup=lambda: shutil.rmtree(folder, ignore_errors=True),
            env=child,
        )

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        raise UsageError("`cn` cannot take part in a discussion yet (it has no plan handoff)")


def _quoted(path: str) -> str:
    """A path as Node reads it inside ``NODE_OPTIONS`` (double quotes around spaces)."""
    if not any(c.isspace() or c in '"\\' for c in path):
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'
