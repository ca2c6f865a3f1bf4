"""The Qwen Code provider: native TUI, events from its own ``--json-file`` (LR-175).

Qwen Code 0.24 renders its TUI on the terminal and, with ``--json-file PATH``, writes the
same structured events as its headless ``stream-json`` mode to that file ("dual output").
hangar gives it a file in a private temporary folder (0700) that only this run knows, so
the events read are exactly this process's (LR-172, LR-173, LR-174); a session started in
another terminal writes its own store and never this file. Session switches (``/clear``,
``/resume``) show as a new ``session_id`` in the same stream. The issue context goes in with
``--append-system-prompt`` (unless the user gave one). The folder is removed when the CLI
ends. Refused flags: ``--json-file``, ``--json-fd``, ``--input-file`` (hangar's channel), and
``--acp`` (no terminal UI). Mapping: :mod:`hangar.localrun.providers.stream_json_events`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from hangar.localrun.providers.base import MessageSink, Provider, UsageSink
from hangar.localrun.providers.jsonl_follow import JsonlFollower, Poller
from hangar.localrun.providers.stream_json_events import StreamJsonMapper
from hangar.localrun.pty_runner import ChildCommand

SOURCE = "qwen-json-file"
POLL_INTERVAL = 0.25


class QwenProvider(Provider):
    name = "qwen"
    executables = ("qwen",)
    owned_flags = ("--json-file", "--json-fd", "--input-file", "--acp")

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        reporter: MessageSink,
        usage_reporter: UsageSink,
    ) -> int:
        mapper = StreamJsonMapper(reporter, usage_reporter, SOURCE, self.name)
        with tempfile.TemporaryDirectory(prefix="hangar-qwen-") as folder:
            events = Path(folder) / "events.jsonl"
            os.close(os.open(events, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            follower = JsonlFollower(events)
            argv = [*args, "--json-file", str(events)]
            if "--append-system-prompt" not in args:
                argv += ["--append-system-prompt", self.issue.prompt()]

            def tick() -> None:
                for event in follower.read():
                    mapper.feed(event)

            with Poller(POLL_INTERVAL, tick, "hangar-qwen-events"):
                code = self.runner.run(ChildCommand(argv, cwd, env))
            mapper.close()
            return code
