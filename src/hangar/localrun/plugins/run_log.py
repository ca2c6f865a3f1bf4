"""The log file of one plugin run: the adapter's diagnostics and hangar's notes about it.

``$HANGAR_HOME/logs/local-runs/<run or session id>.log`` (folder 0700, file 0600) receives
the adapter's stderr byte for byte (its diagnostics never enter the execution log, LR-191)
and hangar's own notes, each on a line starting ``[hangar]``: the command, the session ids
the adapter reported, skipped event lines with the reason, repeated source keys, the exit
code. Writes are thread-safe and bounded: past ``limit`` bytes the rest is dropped and one
note says so, so a chatty adapter cannot fill the disk.
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

from hangar.paths import Env, hangar_paths

DEFAULT_LIMIT = 64 * 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def run_log_path(key: str, environ: Env | None = None) -> Path:
    """Where the log of the run (or discussion session) ``key`` goes."""
    safe = _UNSAFE.sub("_", key)[:120] or "run"
    return hangar_paths(environ).logs_dir / "local-runs" / f"{safe}.log"


class RunLog:
    """Append-only, size-capped log file (see the module docstring)."""

    def __init__(self, path: Path, limit: int = DEFAULT_LIMIT) -> None:
        self.path = path
        self.limit = limit
        self._lock = threading.Lock()
        self._written = 0
        self._truncated = False
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._file = os.fdopen(fd, "ab", buffering=0)

    def write(self, data: bytes) -> None:
        """Append raw bytes (the adapter's stderr)."""
        with self._lock:
            if self._file.closed or self._truncated:
                return
            room = self.limit - self._written
            if len(data) > room:
                data = data[: max(room, 0)]
                self._truncated = True
            self._file.write(data)
            self._written += len(data)
            if self._truncated:
                self._file.write(b"\n[hangar] log limit reached: the rest is not kept\n")

    def note(self, text: str) -> None:
        """Append one hangar note (on its own line)."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.write(f"\n[hangar] {stamp} {text}\n".encode("utf-8", "replace"))

    def close(self) -> None:
        with self._lock:
            self._file.close()
