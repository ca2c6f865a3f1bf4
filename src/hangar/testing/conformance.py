"""Conformance checks for agent store facets, for built-in agents and plugin authors alike.

Give it an :class:`~hangar.agents.base.AgentStore` subclass and a sample home (a folder laid
out like the agent's own home) and it checks the store contract:

* **discover** runs, returns sources of this runtime, and is cheap: it opens a bounded
  number of files (counted with an audit hook: ``open`` and ``sqlite3.connect``), never
  every transcript's bytes twice over;
* **parse**: every session reads without an exception into messages indexed ``0..n-1``
  (sub-agent ``children`` too) that encode to JSON;
* **incremental equals full** where the store reads a source incrementally: feeding the
  lines split at every point (or an even sample of them) and in random chunkings, applying
  each delta as
  ``messages[start:] = delta.messages``, gives exactly the messages and summary of one full
  feed; no delta starts past the end or reuses a wrong index;
* **incremental discovery** where a store lists ``session_paths()``: listing opens no file
  and ``describe(path)`` equals what ``discover()`` gave for that path;
* **resumable** where the projector is a :class:`~hangar.agents.base.ResumableProjector`:
  a fresh projector resumed at any clean turn boundary of a full read (an even sample of
  them) and fed the lines from there yields exactly the full read's messages from that
  boundary on, with the same checklist and context usage, and finds the same later
  boundaries;
* **read-only**: nothing in the home changes (sizes and mtimes of every file), and an empty
  home discovers nothing without an error;
* **garbage is tolerated**: invalid JSON, invalid UTF-8, a JSON array, a huge line and a
  truncated line appended to a transcript raise nothing, are counted in ``skipped`` and
  change no message; a rewritten-format file that is truncated or corrupted loads without
  an exception.

Use the plain functions, or :func:`assert_store_conforms` in a pytest test::

    from hangar.testing.conformance import assert_store_conforms

    def test_my_store(tmp_path):
        assert_store_conforms(MyStore, Path("tests/data/my-agent-home"), tmp_path)
"""

from __future__ import annotations

import itertools
import random
import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from hangar.agents.base import AgentStore, ResumableProjector, SessionSource, SessionSummary
from hangar.agents.homes import AgentHome
from hangar.model import Message, ToolBlock
from hangar.transcripts.tail import MarkRecorder, TurnMark

#: Discovery may open this many files per session found, plus :data:`DISCOVER_OPEN_SLACK`.
DISCOVER_OPENS_PER_SESSION = 3
DISCOVER_OPEN_SLACK = 8
#: Sessions whose split points are all tried below this many lines; above, a sample.
MAX_SPLIT_POINTS = 48
#: Turn boundaries a resumed read is checked at (an even sample above this many).
MAX_RESUME_POINTS = 48
RANDOM_CHUNKINGS = 4
HUGE_LINE_BYTES = 2 * 1024 * 1024

GARBAGE_LINES: tuple[tuple[str, bytes], ...] = (
    ("invalid JSON", b'{"type": "user", "message": '),
    ("invalid UTF-8", b'{"type": "\xff\xfe\xfa"}'),
    ("a JSON array", b"[1, 2, 3]"),
    ("a JSON string", b'"just a string"'),
    ("a huge unterminated line", b'{"huge": "' + b"x" * HUGE_LINE_BYTES),
)


class ConformanceError(AssertionError):
    """A store broke its contract; the message lists every problem found."""


@dataclass
class SessionCheck:
    session_id: str
    path: Path
    messages: int = 0
    skipped: dict[str, int] = field(default_factory=dict)


@dataclass
class ConformanceReport:
    runtime: str
    sessions: list[SessionCheck] = field(default_factory=list)
    discover_opens: int = 0
    problems: list[str] = field(default_factory=list)

    def fail(self, problem: str) -> None:
        self.problems.append(problem)

    def raise_for_problems(self) -> None:
        if self.problems:
            lines = "\n  ".join(self.problems)
            raise ConformanceError(f"{self.runtime}: {len(self.problems)} problem(s):\n  {lines}")


# -- counting opens ---------------------------------------------------------------------

_counter_lock = threading.Lock()
_active: list[tuple[Path, list[str]]] = []
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _active or event not in ("open", "sqlite3.connect"):
        return
    target = args[0] if args else None
    if not isinstance(target, str | bytes | Path):
        return
    text = target.decode(errors="replace") if isinstance(target, bytes) else str(target)
    text = text.removeprefix("file:").split("?", 1)[0]
    for root, opened in _active:
        if text.startswith(str(root)):
            opened.append(text)


@contextmanager
def count_opens(root: Path) -> Iterator[list[str]]:
    """Paths under ``root`` opened (files, SQLite databases) inside the ``with`` block."""
    global _hook_installed
    with _counter_lock:
        if not _hook_installed:
            # Audit hooks cannot be removed; this one does nothing while no count is active.
            sys.addaudithook(_audit)
            _hook_installed = True
    opened: list[str] = []
    entries = [(root, opened)]
    if root.resolve() != root:
        entries.append((root.resolve(), opened))
    _active.extend(entries)
    try:
        yield opened
    finally:
        for entry in entries:
            _active.remove(entry)


# -- reading ----------------------------------------------------------------------------


def split_lines(data: bytes) -> list[bytes]:
    """The lines a transcript engine feeds: complete lines, then a final unterminated one."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _copy(messages: list[Message]) -> list[Message]:
    """A deep copy, so later mutation by a projector cannot hide a missing delta."""
    return msgspec.json.decode(msgspec.json.encode(messages), type=list[Message])


def read_session(store: AgentStore, source: SessionSource) -> tuple[list[Message], SessionSummary]:
    """A full read, as the engine would do it from scratch."""
    if store.reads_incrementally(source):
        projector = store.new_projector(source)
        for line in split_lines(source.path.read_bytes()):
            projector.feed(line)
        delta = projector.take()
        return _copy(delta.messages), projector.summary()
    loaded = store.load(source)
    return _copy(loaded.messages), loaded.summary


def check_messages(messages: list[Message], where: str) -> list[str]:
    """Indexes ``0..n-1`` (children too), known roles, JSON-encodable."""
    problems: list[str] = []
    for position, message in enumerate(messages):
        if message.index != position:
            problems.append(f"{where}: message {position} has index {message.index}")
        if message.role not in ("user", "assistant"):
            problems.append(f"{where}: message {position} has role {message.role!r}")
        for block in message.blocks or []:
            if isinstance(block, ToolBlock) and block.children:
                problems += check_messages(block.children, f"{where} > {block.tool_use_id}")
    try:
        msgspec.json.encode(messages)
    except (TypeError, ValueError) as exc:
        problems.append(f"{where}: messages do not encode to JSON: {exc}")
    return problems


def _feed_in_batches(
    store: AgentStore, source: SessionSource, batches: list[list[bytes]]
) -> tuple[list[Message], SessionSummary, list[str]]:
    projector = store.new_projector(source)
    messages: list[Message] = []
    problems: list[str] = []
    for batch in batches:
        for line in batch:
            projector.feed(line)
        delta = projector.take()
        if delta.start > len(messages):
            problems.append(f"delta starts at {delta.start} past the end ({len(messages)})")
        for offset, message in enumerate(delta.messages):
            if message.index != delta.start + offset:
                problems.append(
                    f"delta from {delta.start} carries index {message.index} at {offset}"
                )
                break
        messages[delta.start :] = _copy(delta.messages)
    return messages, projector.summary(), problems


def check_incremental(
    store: AgentStore,
    source: SessionSource,
    *,
    max_split_points: int = MAX_SPLIT_POINTS,
    random_chunkings: int = RANDOM_CHUNKINGS,
    seed: int = 0,
) -> list[str]:
    """Every batching of the lines gives the full read's messages and summary."""
    lines = split_lines(source.path.read_bytes())
    full, full_summary = read_session(store, source)
    expected = msgspec.json.encode(full)
    count = len(lines)
    points = list(range(count + 1))
    if len(points) > max_split_points:
        step = len(points) / max_split_points
        points = sorted({int(i * step) for i in range(max_split_points)} | {count})
    rng = random.Random(f"{seed}:{source.session_id}")
    batchings: list[tuple[str, list[list[bytes]]]] = [
        (f"split at line {k}", [lines[:k], lines[k:]]) for k in points
    ]
    batchings.append(("one line per batch", [[line] for line in lines]))
    for n in range(random_chunkings):
        cuts: list[int] = []
        if count > 1:
            cuts = sorted(rng.sample(range(1, count), min(count - 1, rng.randint(1, 8))))
        chunks = [lines[a:b] for a, b in itertools.pairwise([0, *cuts, count])]
        batchings.append((f"random chunking {n}", chunks))
    problems: list[str] = []
    where = f"{source.session_id}"
    for label, batches in batchings:
        got, summary, delta_problems = _feed_in_batches(store, source, batches)
        problems += [f"{where} ({label}): {p}" for p in delta_problems]
        if msgspec.json.encode(got) != expected:
            problems.append(f"{where} ({label}): incremental messages differ from a full read")
        if summary != full_summary:
            problems.append(f"{where} ({label}): summary differs from a full read")
        if problems:
            break
    return problems


def _lines_with_offsets(data: bytes) -> list[tuple[int, bytes]]:
    """The complete, non-blank lines the engine feeds, with their byte offsets."""
    out: list[tuple[int, bytes]] = []
    offset = 0
    for line in data.split(b"\n")[:-1]:
        if line.strip():
            out.append((offset, line))
        offset += len(line) + 1
    return out


def _feed_recorded(
    projector: ResumableProjector, lines: list[tuple[int, bytes]], first_number: int
) -> MarkRecorder:
    recorder = MarkRecorder(count=first_number)
    for offset, line in lines:
        projector.feed(line)
        recorder.after_line(projector, offset, line)
    return recorder


def check_resumable(
    store: AgentStore, source: SessionSource, *, max_points: int = MAX_RESUME_POINTS
) -> list[str]:
    """A projector resumed at each clean turn boundary equals the full read from there."""
    full = store.new_projector(source)
    if not isinstance(full, ResumableProjector):
        return []
    where = f"{source.session_id} (resume)"
    lines = _lines_with_offsets(source.path.read_bytes())
    recorder = _feed_recorded(full, lines, 0)
    expected = msgspec.to_builtins(full.take().messages)
    summary = full.summary()
    marks = recorder.with_indexes(0, full.turn_first_indexes())
    if marks is None:
        return [f"{where}: a boundary names a turn the projector does not have"]
    firsts = list(full.turn_first_indexes())
    if firsts != sorted(firsts) or any(i < 0 or i > len(expected) for i in firsts):
        return [f"{where}: turn first indexes {firsts[:8]}… are not increasing within range"]
    usable = [m for m in marks if m.clean and m.number > 0]
    if len(usable) > max_points:
        step = len(usable) / max_points
        usable = [usable[int(i * step)] for i in range(max_points)]
    problems: list[str] = []
    for mark in usable:
        problems += _check_resumed_at(store, source, lines, mark, marks, expected, summary, where)
        if problems:
            break
    return problems


def _check_resumed_at(
    store: AgentStore,
    source: SessionSource,
    lines: list[tuple[int, bytes]],
    mark: TurnMark,
    marks: list[TurnMark],
    expected: list[Any],
    summary: SessionSummary,
    where: str,
) -> list[str]:
    at = f"{where} at turn {mark.number} (byte {mark.offset})"
    projector = store.new_projector(source)
    assert isinstance(projector, ResumableProjector)
    projector.resume(mark.inherited(), mark.first_index, mark.number)
    seen = _feed_recorded(projector, [x for x in lines if x[0] >= mark.offset], mark.number)
    delta = projector.take()
    problems: list[str] = []
    if delta.start != mark.first_index:
        problems.append(f"{at}: the first delta starts at {delta.start}, not {mark.first_index}")
    elif msgspec.to_builtins(delta.messages) != expected[mark.first_index :]:
        problems.append(f"{at}: messages differ from the full read's")
    resumed = projector.summary()
    if resumed.checklist != summary.checklist:
        problems.append(f"{at}: checklist differs from the full read's")
    if resumed.context_usage != summary.context_usage:
        problems.append(f"{at}: context usage differs from the full read's")
    later = [(m.number, m.offset) for m in marks if m.number >= mark.number]
    if [(m.number, m.offset) for m in seen.marks] != later:
        problems.append(f"{at}: the later turn boundaries differ from the full read's")
    return problems


def _skipped_total(summary: SessionSummary) -> int:
    return sum(summary.skipped.values())


def check_garbage_lines(store: AgentStore, source: SessionSource) -> list[str]:
    """Garbage lines after a real transcript raise nothing, are counted, change nothing."""
    lines = split_lines(source.path.read_bytes())
    problems: list[str] = []
    garbage = list(GARBAGE_LINES)
    if lines and len(lines[-1]) > 2:
        garbage.append(("a truncated copy of the last line", lines[-1][: len(lines[-1]) // 2]))
    for label, junk in garbage:
        projector = store.new_projector(source)
        for line in lines:
            projector.feed(line)
        before = _copy(projector.take().messages)
        before_skipped = _skipped_total(projector.summary())
        try:
            projector.feed(junk)
            delta = projector.take()
            summary = projector.summary()
        except Exception as exc:
            problems.append(f"{source.session_id}: {label} raised {exc!r}")
            continue
        after = before[: delta.start] + _copy(delta.messages)
        if msgspec.json.encode(after) != msgspec.json.encode(before):
            problems.append(f"{source.session_id}: {label} changed the messages")
        if _skipped_total(summary) <= before_skipped:
            problems.append(f"{source.session_id}: {label} was not counted in skipped")
    return problems


def check_corrupted_file(
    store_cls: type[AgentStore], home: AgentHome, source: SessionSource, workdir: Path
) -> list[str]:
    """A rewritten-format session file truncated or corrupted loads without an exception."""
    try:
        relative = source.path.resolve().relative_to(home.root.resolve())
    except ValueError:
        return []
    problems: list[str] = []
    original = source.path.read_bytes()
    variants = {
        "truncated to half": original[: len(original) // 2],
        "with garbage appended": original + b"\n{not json \xff\xfe\n",
        "replaced by invalid UTF-8": b"\xff\xfe\xfa" * 64,
        "emptied": b"",
    }
    for n, (label, data) in enumerate(variants.items()):
        copy_root = workdir / f"corrupt-{source.session_id[:40]}-{n}"
        shutil.copytree(home.root, copy_root, symlinks=False)
        (copy_root / relative).write_bytes(data)
        store = store_cls(replace(home, root=copy_root))
        try:
            found = [s for s in store.discover() if s.session_id == source.session_id]
            for again in found:
                loaded = store.load(again)
                problems += check_messages(loaded.messages, f"{source.session_id} ({label})")
                if (
                    label == "truncated to half"
                    and again.path.suffix == ".json"
                    and not loaded.summary.skipped
                ):
                    problems.append(f"{source.session_id}: {label}: nothing counted in skipped")
        except Exception as exc:
            problems.append(f"{source.session_id}: file {label} raised {exc!r}")
        shutil.rmtree(copy_root, ignore_errors=True)
    return problems


def check_incremental_discovery(store: AgentStore, sources: list[SessionSource]) -> list[str]:
    """For stores with ``session_paths()``: listing opens no file, and ``describe(path)``
    gives what ``discover()`` gave for that path."""
    with count_opens(store.home.root) as opened:
        listed = store.session_paths()
        paths = None if listed is None else list(listed)
    if paths is None:
        return []
    problems = [f"session_paths opened {name}" for name in opened]
    expected = {str(s.path): s for s in sources}
    if sorted(expected) != sorted({str(p) for p in paths}):
        problems.append("session_paths and discover name different files")
    for path in paths:
        described = store.describe(path)
        if described is not None and described != expected.get(str(path)):
            problems.append(f"describe({path.name}) differs from discover")
    return problems


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    """``relative path → (size, mtime_ns)`` of every file under ``root``.

    SQLite's shared-memory index (``*-shm``) is left out: every WAL reader writes its read
    marks there. That is SQLite's coordination file, not the agent's data.
    """
    state: dict[str, tuple[int, int]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.endswith("-shm"):
            stat = path.stat()
            state[path.relative_to(root).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return state


def check_untouched(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]
) -> list[str]:
    """Reading changed nothing in the agent's home (an empty ``-wal`` SQLite creates when it
    opens a WAL database that has none is the one allowed new file)."""
    problems: list[str] = []
    for name in sorted(set(before) | set(after)):
        if before.get(name) == after.get(name):
            continue
        if name not in before and name.endswith("-wal") and after[name][0] == 0:
            continue
        problems.append(
            f"reading changed the agent's file {name}: {before.get(name)} -> {after.get(name)}"
        )
    return problems


# -- the whole suite --------------------------------------------------------------------


def check_store(
    store_cls: type[AgentStore],
    home: AgentHome | Path,
    workdir: Path,
    *,
    max_sessions: int = 25,
    min_sessions: int = 1,
) -> ConformanceReport:
    """Run every check over the sessions found in ``home``; problems go in the report.

    ``workdir`` is an empty scratch folder (corrupted copies of the home are made there).
    """
    if isinstance(home, Path):
        home = AgentHome(store_cls.runtime, home, None)
    report = ConformanceReport(store_cls.runtime)
    store = store_cls(home)
    untouched = tree_state(home.root)
    empty = workdir / "empty-home"
    empty.mkdir(parents=True, exist_ok=True)
    try:
        if list(store_cls(AgentHome(store_cls.runtime, empty, None)).discover()):
            report.fail("discover found sessions in an empty home")
    except Exception as exc:
        report.fail(f"discover raised {exc!r} on an empty home")
    try:
        with count_opens(home.root) as opened:
            sources = list(store.discover())
        report.discover_opens = len(opened)
    except Exception as exc:
        report.fail(f"discover raised {exc!r}")
        return report
    if len(sources) < min_sessions:
        report.fail(f"discover found {len(sources)} sessions, expected at least {min_sessions}")
    budget = DISCOVER_OPENS_PER_SESSION * len(sources) + DISCOVER_OPEN_SLACK
    if report.discover_opens > budget:
        report.fail(f"discover opened {report.discover_opens} files for {len(sources)} sessions")
    for source in sources:
        if source.runtime != store_cls.runtime:
            report.fail(f"{source.session_id}: runtime {source.runtime!r}")
    try:
        report.problems += check_incremental_discovery(store, sources)
    except Exception as exc:
        report.fail(f"session_paths/describe raised {exc!r}")
    for source in sources[:max_sessions]:
        check = SessionCheck(source.session_id, source.path)
        report.sessions.append(check)
        try:
            messages, summary = read_session(store, source)
        except Exception as exc:
            report.fail(f"{source.session_id}: parse raised {exc!r}")
            continue
        check.messages, check.skipped = len(messages), dict(summary.skipped)
        report.problems += check_messages(messages, source.session_id)
        try:
            if store.reads_incrementally(source):
                report.problems += check_incremental(store, source)
                report.problems += check_resumable(store, source)
                report.problems += check_garbage_lines(store, source)
            elif len(report.sessions) <= 3:
                report.problems += check_corrupted_file(store_cls, home, source, workdir)
        except Exception as exc:
            report.fail(f"{source.session_id}: check raised {exc!r}")
    report.problems += check_untouched(untouched, tree_state(home.root))
    return report


def assert_store_conforms(
    store_cls: type[AgentStore],
    home: AgentHome | Path,
    workdir: Path,
    *,
    min_sessions: int = 1,
) -> ConformanceReport:
    """pytest-friendly: run :func:`check_store` and raise :class:`ConformanceError` (an
    ``AssertionError``) listing every problem."""
    report = check_store(store_cls, home, workdir, min_sessions=min_sessions)
    report.raise_for_problems()
    return report
