"""The Codex provider: TUI attached to its own app-server through a watching proxy (LR-195..204).

Layout of one run: ``codex app-server --listen ws://127.0.0.1:A`` (a sidecar in its own process
group) ← :class:`~hangar.localrun.ws_proxy.WsProxy` on ``127.0.0.1:P`` ← the TUI
``codex --remote ws://127.0.0.1:P …`` in the user's terminal. The proxy relays every frame,
shows them to :class:`~hangar.localrun.providers.codex_events.CodexEventMapper`, and appends the
issue context to ``developerInstructions`` of the session's ``thread/start``/``thread/resume``.
``/clear`` and ``/resume`` are thread switches seen by the mapper; the sidecars are stopped only
when the TUI process ends (never by parsing slash commands, LR-203).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hangar.localrun.providers.base import DiscussionHooks, MessageSink, Provider, UsageSink
from hangar.localrun.providers.codex_events import (
    CodexEventMapper,
    inject_developer_instructions,
)
from hangar.localrun.providers.codex_plan import CodexPlanWatch
from hangar.localrun.pty_runner import ChildCommand
from hangar.localrun.sidecar import Sidecar, SidecarError, free_loopback_port
from hangar.localrun.ws_proxy import WsProxy

START_ATTEMPTS = 3


class CodexProvider(Provider):
    name = "codex"
    executables = ("codex",)
    owned_flags = ("--remote", "app-server", "exec", "review", "--remote-auth-token-env")
    supports_discussion = True

    def _start_app_server(self, exe: str, cwd: Path, env: Mapping[str, str]) -> tuple[Sidecar, int]:
        last: SidecarError | None = None
        for _ in range(START_ATTEMPTS):  # a port can be taken between probe and bind
            port = free_loopback_port()
            sidecar = Sidecar([exe, "app-server", "--listen", f"ws://127.0.0.1:{port}"], cwd, env)
            try:
                sidecar.wait_for_port(port)
            except SidecarError as exc:
                sidecar.stop()
                last = exc
                continue
            return sidecar, port
        assert last is not None
        raise last

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        mapper = CodexEventMapper(reporter, usage_reporter)
        context = self.issue.prompt()
        return self._session(
            args,
            cwd,
            env,
            mapper,
            rewrite_client_text=lambda text: inject_developer_instructions(text, context),
        )

    def _session(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        mapper: CodexEventMapper,
        **proxy_options: Any,
    ) -> int:
        exe = args[0]  # exactly as the user gave it (LR-123)
        sidecar, port = self._start_app_server(exe, cwd, env)
        proxy: WsProxy | None = None
        watch_server = proxy_options.pop("observe_server_text", None)

        def server_frame(text: str) -> None:
            mapper.server_frame(text)
            if watch_server is not None:
                watch_server(text)

        try:
            proxy = WsProxy(
                f"ws://127.0.0.1:{port}",
                observe_client_text=mapper.client_frame,
                observe_server_text=server_frame,
                **proxy_options,
            ).start()
            argv = [exe, "--remote", proxy.url, *args[1:]]
            return self.runner.run(ChildCommand(argv, cwd, env))
        finally:
            if proxy is not None:
                proxy.stop()
            sidecar.stop()
            mapper.close()

    # -- discussions --------------------------------------------------------------------
    @classmethod
    def resume_session_id(
        cls, args: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> str | None:
        """``codex resume ID`` (``--last`` and the picker name no session up front)."""
        rest = list(args[1:])
        if "resume" not in rest:
            return None
        after = rest[rest.index("resume") + 1 :]
        for index, arg in enumerate(after):
            if arg.startswith("-"):
                continue
            previous = after[index - 1] if index else ""
            if previous in ("-c", "--config", "--enable", "--disable", "-m", "--model"):
                continue
            return arg
        return None

    @classmethod
    def resume_command(cls, args: Sequence[str], session_id: str) -> str | None:
        return shlex.join([args[0], "resume", session_id])

    def discuss(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str], hooks: DiscussionHooks
    ) -> int:
        """No issue context is added (there is no issue); the plan watch follows plan mode
        and holds the TUI's implement action for the card (:mod:`.codex_plan`)."""
        mapper = CodexEventMapper(hooks.sink, hooks.sink)
        watch = CodexPlanWatch(hooks)
        return self._session(
            args,
            cwd,
            env,
            mapper,
            observe_server_text=watch.server_frame,
            gate_client_text=watch.gate,
        )
