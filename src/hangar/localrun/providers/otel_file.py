"""Records a CLI's OpenTelemetry file exporter appended since the last read.

Gemini CLI writes each record as indented JSON, one after another; Copilot CLI writes JSON
lines. Both are a sequence of JSON values, read here incrementally from a stored offset: a
record still being written waits for its end; a value that is not an object is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hangar.localrun.providers.jsonl_tail import appended

_MAX_PENDING = 8 << 20
"""A record this large that still does not parse is garbage: it is dropped, never waited on."""


class OtelFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.pending = ""
        self._decoder = json.JSONDecoder()

    def records(self) -> list[dict[str, Any]]:
        """Each complete JSON object appended since the last call, in file order."""
        data = appended(self.path, self.offset)
        if not data:
            return []
        self.offset += len(data)
        self.pending += data.decode("utf-8", "replace")
        out: list[dict[str, Any]] = []
        pos = 0
        text = self.pending
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            try:
                value, pos = self._decoder.raw_decode(text, pos)
            except ValueError:
                break  # the rest of a record is still to come
            if isinstance(value, dict):
                out.append(value)
        self.pending = text[pos:]
        if len(self.pending) > _MAX_PENDING:
            self.pending = ""
        return out
