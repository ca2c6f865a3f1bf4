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

from collections.abc import Mapping, Sequence
from pathlib import Path

from hangar.localrun.providers.base import MessageSink, Provider, UsageSink
from hangar.localrun.providers.codex_events import (
    CodexEventMapper,
    inject_developer_instructions,
)
from hangar.localrun.pty_runner import ChildCommand
from hangar.localrun.sidecar import Sidecar, SidecarError, free_loopback_port
from hangar.localrun.ws_proxy import WsProxy

START_ATTEMPTS = 3


class CodexProvider(Provider):
    name = "codex"
    executables = ("codex",)
    owned_flags = ("--remote", "app-server", "exec", "review", "--remote-auth-token-env")

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
        exe = args[0]  # exactly as the user gave it (LR-123)
        mapper = CodexEventMapper(reporter, usage_reporter)
        context = self.issue.prompt()
        sidecar, port = self._start_app_server(exe, cwd, env)
        proxy: WsProxy | None = None
        try:
            proxy = WsProxy(
                f"ws://127.0.0.1:{port}",
                rewrite_client_text=lambda text: inject_developer_instructions(text, context),
                observe_client_text=mapper.client_frame,
                observe_server_text=mapper.server_frame,
            ).start()
            argv = [exe, "--remote", proxy.url, *args[1:]]
            return self.runner.run(ChildCommand(argv, cwd, env))
        finally:
            if proxy is not None:
                proxy.stop()
            sidecar.stop()
            mapper.close()
