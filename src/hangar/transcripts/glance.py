"""A first look at a session file never read before: its last turns, from its last bytes.

Before a file's prefix is read the number of messages in it is unknown, so a page from its
end cannot carry final indexes (DESIGN §4). A *glance* shows the content anyway, with the
indexes settled later: it reads a window at the end of the file (1 MiB, grown until it
holds ``limit`` messages after a turn boundary), feeds it to a fresh
:class:`~hangar.agents.base.ResumableProjector` from the window's first complete line,
and keeps the turns from the first boundary the projector opened after that line (the
turn it started in may be cut). The messages' ``index`` counts from the first of them;
``settled`` is false. A consumer shows them, then asks the engine for the exact page (a
full read, which also leaves the turn table every later open resumes from); their
positions from the end are then final.

What a glance cannot see: a line of its window that refers to a turn before the window (a
late result for an older call) is read without that turn. Such references make a glance
differ from the settled page; the settled page is always exact.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path

import msgspec

from hangar.agents.base import AgentStore, ResumableProjector, SessionSource
from hangar.model import Checklist, ContextUsage, Message
from hangar.regular_files import open_regular
from hangar.transcripts.lines import LineReader, is_compressed
from hangar.transcripts.tail import MarkRecorder

FIRST_WINDOW = 1 << 20
MAX_ROUNDS = 6


@dataclass(frozen=True)
class Glance:
    """The last turns of a session (see the module docstring)."""

    messages: list[Message]
    settled: bool
    """True when ``index`` is final (the window reached the start of the file)."""
    offset: int | None
    """Byte offset of the first line the messages come from (``None`` for a tail-first
    read through the engine)."""
    bytes_read: int
    checklist: Checklist | None = None
    context_usage: ContextUsage | None = None


def line_start_at_or_after(path: Path, offset: int) -> int:
    """The offset of the first line that starts at or after ``offset``."""
    if offset <= 0:
        return 0
    with open_regular(path) as handle:
        handle.seek(offset - 1)
        position = offset - 1
        while True:
            chunk = handle.read(64 * 1024)
            if not chunk:
                return position
            found = chunk.find(b"\n")
            if found >= 0:
                return position + found + 1
            position += len(chunk)


def glance(store: AgentStore, source: SessionSource, limit: int) -> Glance | None:
    """The last turns holding at least ``limit`` messages (fewer when the file has fewer),
    or ``None`` for a source that cannot be read from its end (rewritten formats, ``.zst``,
    projectors that are not resumable) or whose last :data:`MAX_ROUNDS` windows held no
    usable turn boundary (the caller then reads the file in full). Raises ``OSError`` when
    the file cannot be read."""
    if not store.reads_incrementally(source) or is_compressed(source.path):
        return None
    size = source.path.stat().st_size
    window = FIRST_WINDOW
    read = 0
    for _ in range(MAX_ROUNDS):
        start = line_start_at_or_after(source.path, size - window) if window < size else 0
        projector = store.new_projector(source)
        if not isinstance(projector, ResumableProjector):
            return None
        reader = LineReader(
            source.path,
            start,
            parser_repairs_surrogates=projector.repairs_lone_surrogates,
            keep_line_endings=projector.accepts_line_endings,
        )
        recorder = MarkRecorder()
        _feed(projector, reader, recorder)
        read += reader.bytes_read
        delta = projector.take()
        summary = projector.summary()
        messages = delta.messages
        if start == 0:
            return Glance(
                messages[-limit:], True, 0, read, summary.checklist, summary.context_usage
            )
        marks = recorder.with_indexes(0, projector.turn_first_indexes()) or []
        usable = [m for m in marks if m.clean and m.number > 0]
        enough = [m for m in usable if len(messages) - m.first_index >= limit]
        if enough:
            mark = enough[-1]
            shown = [
                msgspec.structs.replace(m, index=m.index - mark.first_index)
                for m in messages[mark.first_index :]
            ]
            return Glance(shown, False, mark.offset, read, summary.checklist, summary.context_usage)
        # Too few messages after a boundary: widen the window by what they cost.
        after = len(messages) - usable[0].first_index if usable else 0
        covered = size - usable[0].offset if usable else window
        needed = int(covered * (limit + 1) / after * 1.5) if after else window * 4
        window = max(window * 2, needed)
    return None


def _feed(projector: ResumableProjector, reader: LineReader, recorder: MarkRecorder) -> None:
    enabled = gc.isenabled()
    gc.disable()
    try:
        feed, after = projector.feed, recorder.after_line
        for line in reader:
            feed(line)
            after(projector, reader.line_start, line)
    finally:
        if enabled:
            gc.enable()
