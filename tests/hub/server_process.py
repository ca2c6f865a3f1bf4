"""Start a real ``hangar serve`` process on a free loopback port and end it by its PID."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

STARTUP_DEADLINE = 60.0
URL_LINE = re.compile(r"listening on (http://127\.0\.0\.1:\d+)/")


@dataclass
class RunningHub:
    process: subprocess.Popen[str]
    url: str
    output: list[str] = field(default_factory=list)

    def token(self, hangar_home: Path) -> str:
        return (hangar_home / "token").read_text().strip()


def _pump(stream: object, lines: queue.Queue[str], keep: list[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        keep.append(line)
        lines.put(line)


@contextmanager
def running_hub(*args: str, env: dict[str, str] | None = None) -> Iterator[RunningHub]:
    """``hangar serve --port 0 ARGS``; waits (with a deadline) until it printed how to log in."""
    command = [sys.executable, "-m", "hangar", "serve", "--port", "0", *args]
    process = subprocess.Popen(
        command,
        env=dict(os.environ if env is None else env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    lines: queue.Queue[str] = queue.Queue()
    output: list[str] = []
    pump = threading.Thread(target=_pump, args=(process.stdout, lines, output), daemon=True)
    pump.start()
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE
        url = None
        ready = False
        while not ready:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or process.poll() is not None:
                raise AssertionError("hangar serve did not start:\n" + "".join(output))
            try:
                line = lines.get(timeout=min(remaining, 1.0))
            except queue.Empty:
                continue
            match = URL_LINE.search(line)
            url = match.group(1) if match else url
            ready = url is not None and "Ctrl-C stops" in line
        assert url is not None
        yield RunningHub(process, url, output)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)
        pump.join(timeout=15)
        if process.stdout is not None:
            process.stdout.close()
