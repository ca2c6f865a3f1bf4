"""Follow one JSONL file a provider was told about (never a file it found on its own).

:class:`JsonlFollower` reads what the file gained since the last read, from a byte offset:
complete lines only (a partial last line waits for its newline), JSON objects only (anything
else is counted in ``skipped`` and dropped), a missing file is simply not there yet. A file
that shrinks was rewritten: it is read again from its start, and the mapper's own keys
deduplicate what it had already seen. :class:`Poller` calls a function every ``interval``
seconds on a thread until the ``with`` block ends.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_READ = 8 << 20


@dataclass
class JsonlFollower:
    path: Path
    offset: int = 0
    skipped: int = 0
    _partial: bytes = b""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_end(cls, path: Path) -> JsonlFollower:
        """Follow only what is written after now (a resumed session's older lines are not
        this run's)."""
        try:
            return cls(path, path.stat().st_size)
        except OSError:
            return cls(path)

    def read(self) -> list[dict[str, Any]]:
        return [record for _, record in self.read_located()]

    def read_located(self) -> list[tuple[int, dict[str, Any]]]:
        """The new records, each with the byte offset its line starts at (for formats whose
        lines carry no ids of their own: in a file that only grows, an offset names a line)."""
        with self._lock:
            try:
                with self.path.open("rb") as handle:
                    size = handle.seek(0, 2)
                    if size < self.offset:
                        self.offset, self._partial = 0, b""
                    handle.seek(self.offset)
                    data = handle.read(MAX_READ)
            except OSError:
                return []
            if not data:
                return []
            start = self.offset - len(self._partial)
            self.offset += len(data)
            *lines, self._partial = (self._partial + data).split(b"\n")
            records = []
            for line in lines:
                at, start = start, start + len(line) + 1
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    self.skipped += 1
                    continue
                if isinstance(record, dict):
                    records.append((at, record))
                else:
                    self.skipped += 1
            return records


class Poller:
    """Run ``tick`` every ``interval`` seconds on a daemon thread while in the ``with``."""

    def __init__(self, interval: float, tick: Callable[[], None], name: str) -> None:
        self._stop = threading.Event()
        self._tick = tick

        def loop() -> None:
            while not self._stop.wait(interval):
                tick()

        self._thread = threading.Thread(target=loop, name=name, daemon=True)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._tick()  # what was written last, after the CLI ended
