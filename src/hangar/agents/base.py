"""The store facet: how an agent's sessions are found and read.

An agent module subclasses :class:`AgentStore` and registers it (see
:mod:`hangar.agents.registry`). Two reading styles exist:

* **Append-only formats** (JSONL transcripts: Codex, Claude, Copilot, Qwen, …) set
  ``append_only = True`` and return a :class:`TranscriptProjector` from
  :meth:`AgentStore.new_projector`. The transcript engine owns the file, the byte offsets
  and partial lines; it feeds the projector each *complete* line in file order and collects
  what changed with :meth:`TranscriptProjector.take`.
* **Rewritten formats** (SQLite databases, whole-file JSON: OpenCode, Continue, Gemini JSON)
  set ``append_only = False`` and implement :meth:`AgentStore.load`, called again whenever
  the source's signature changes.

Contract for projectors (checked by the conformance suite in :mod:`hangar.testing`): feeding
the same lines in any batching, with :meth:`~TranscriptProjector.take` called between batches
and each delta applied as ``messages[delta.start:] = delta.messages``, yields exactly the
messages of one full feed followed by one take. Messages before ``delta.start`` are never
touched, so a projector re-projects only from the first turn an appended line affected.
Malformed or unknown lines are counted in ``summary().skipped`` and never raise.

Tail-first opens (optional): a projector that also implements :class:`ResumableProjector`
can start at a turn boundary of a file the engine read before (from a turn table it kept,
in memory or persisted), so a first page reads only the last turns.

Incremental discovery (optional, added after the first sketch; stores that only implement
:meth:`AgentStore.discover` keep working): a store that can name its session files from a
directory walk alone implements :meth:`AgentStore.session_paths` and
:meth:`AgentStore.describe`. The LocalTask index then stats every path and calls ``describe``
only for new or changed files, so a re-list after nothing changed opens no transcript.
:meth:`AgentStore.session_titles` returns names kept outside the transcripts (Codex's
``session_index.jsonl``), applied on every list.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Final, TypeAlias

from hangar.agents.homes import AgentHome
from hangar.model import Checklist, ContextUsage, Message


@dataclass(frozen=True)
class SessionSource:
    """A session found by discovery, described from cheap reads (stat, head, tail).

    ``path`` is what the engine signs and watches: the transcript file, or the database or
    session file a rewritten format lives in. ``session_id`` is the agent's own id.
    """

    runtime: str
    session_id: str
    path: Path
    runtime_handle: dict[str, str]
    title: str | None = None
    workspace_path: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    model: str | None = None
    archived: bool = False
    parent_session_id: str | None = None
    """Set for child sessions (sub-agents); they are read as part of their parent."""
    status: str | None = None
    """The session's status when its tail tells it cheaply (e.g. ``failed``: the last request
    ended in an API error), so a list shows it before any full read; ``None`` when only a full
    read can tell."""


@dataclass
class SessionSummary:
    """What a full read learned about a session beyond its messages."""

    title: str | None = None
    workspace_path: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    model: str | None = None
    status: str = "done"
    message_count: int = 0
    checklist: Checklist | None = None
    context_usage: ContextUsage | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    """Records not turned into messages, by record type (``"invalid_json"`` for bad lines)."""


@dataclass(frozen=True)
class ProjectionDelta:
    """Messages to put in place of everything from index ``start`` on."""

    start: int
    messages: list[Message]


@dataclass
class LoadedSession:
    messages: list[Message]
    summary: SessionSummary


class TranscriptProjector(ABC):
    """Incremental parsing state of one append-only session."""

    repairs_lone_surrogates: ClassVar[bool] = False
    """Whether :meth:`feed` deals with lone surrogate escapes itself. The engine passes every
    line through :func:`~hangar.tolerant_lines.tolerant_line` first; for a projector that
    says ``True`` it only makes the line valid UTF-8 and skips the escape scan, a third of
    the cost of reading a line. Say ``True`` only when the projector's decoder refuses any
    line that holds a lone surrogate escape (msgspec does, wherever the escape stands) and
    the projector then feeds :func:`~hangar.tolerant_lines.repaired_after_refusal` of it:
    the result is then the same as from tolerant lines."""

    accepts_line_endings: ClassVar[bool] = False
    """Whether :meth:`feed` takes a line that still ends in its ``\\n`` (a projector that
    only hands the line to a JSON decoder: whitespace after the value is allowed). The
    reader then passes on the lines it read as they are, instead of a copy without the
    newline (a tenth of a tail-first open's time)."""

    @abstractmethod
    def feed(self, line: bytes) -> None:
        """Take one complete line (without its newline, unless :attr:`accepts_line_endings`),
        in file order."""

    @abstractmethod
    def take(self) -> ProjectionDelta:
        """Return the messages changed since the last call (``start`` = first changed index)."""

    @abstractmethod
    def summary(self) -> SessionSummary:
        """What is known of the session after the lines fed so far."""


Carry: TypeAlias = "bool | int | float | str | list[Carry] | dict[str, Carry] | None"
"""What a turn inherits from the lines before it, as plain JSON (it is persisted)."""


class Unresumable:
    """The type of :data:`UNRESUMABLE`."""

    def __repr__(self) -> str:
        return "UNRESUMABLE"


UNRESUMABLE: Final = Unresumable()
"""What :meth:`ResumableProjector.turn_carry` returns for a turn a projector cannot resume
at (e.g. it did not start at the first record of its line)."""


class ResumableProjector(TranscriptProjector):
    """A projector that can continue a session from a turn boundary (tail-first opens).

    A *turn* is a request and everything answering it; turns are numbered from 0 in file
    order. While the engine feeds a whole file it calls :meth:`turns_started` after each
    line: when the count grows by one, that line opened turn ``turns_started() - 1`` and
    :meth:`turn_carry` is what that turn inherited from earlier lines. After the parse,
    :meth:`turn_first_indexes` gives each turn's first message index. Together they make a
    turn table.

    **Contract** (checked by the conformance suite): a fresh projector given
    ``resume(carry, first_index, number)`` of turn ``number`` and fed the lines from that
    turn's first line on yields exactly the messages a full parse yields from
    ``first_index`` on (and the same checklist and context usage), unless a line after the
    boundary changed or used a turn before it. :meth:`reached_back` reports such lines (the
    lowest turn number a line changed or looked up, when that is not the last turn), and
    the engine never resumes at a boundary one crossed. ``carry`` values must survive a
    JSON round trip unchanged in meaning (tuples come back as lists).
    """

    @abstractmethod
    def turns_started(self) -> int:
        """Turns so far, counting the ``turn_base`` turns before a resume point."""

    @abstractmethod
    def turn_carry(self) -> Carry | Unresumable:
        """What the latest turn inherited when it opened (state from before its first
        line), or :data:`UNRESUMABLE`."""

    @abstractmethod
    def resume(self, carry: Carry, first_index: int, turn_base: int) -> None:
        """Prepare an empty projector to continue at the first line of turn ``turn_base``,
        whose first message has index ``first_index``."""

    @abstractmethod
    def turn_first_indexes(self) -> Sequence[int]:
        """First message index of each turn from ``turn_base`` on, as of the last take."""

    @abstractmethod
    def reached_back(self) -> int | None:
        """The lowest earlier turn a line changed or used since the last call (then
        forgotten); ``None`` when every line stayed in the last turn."""


class AgentStore(ABC):
    """The store facet of one agent CLI."""

    runtime: ClassVar[str]
    """Stable runtime id used in the API (``codex``, ``claude``, ``opencode``, …)."""
    append_only: ClassVar[bool] = True

    def __init__(self, home: AgentHome) -> None:
        self.home = home

    @abstractmethod
    def discover(self) -> Iterator[SessionSource]:
        """Every session under this agent's home, from cheap reads only."""

    def session_paths(self) -> Iterator[Path] | None:
        """Every session file, from directory listings only; ``None`` if not supported."""
        return None

    def describe_each(self, paths: Iterable[Path]) -> Iterator[SessionSource]:
        """:meth:`describe` of each path, leaving out those that are not sessions: the
        :meth:`discover` of a store whose :meth:`session_paths` names every session."""
        for path in paths:
            source = self.describe(path)
            if source is not None:
                yield source

    def describe(self, path: Path) -> SessionSource | None:
        """The session stored at ``path`` (head/tail reads), or ``None`` if it is not one."""
        for source in self.discover():
            if source.path == path:
                return source
        return None

    def session_titles(self) -> Mapping[str, str]:
        """Titles by session id kept outside the transcripts (cheap; may be cached by stat)."""
        return {}

    def reads_incrementally(self, source: SessionSource) -> bool:
        """Whether ``source`` is read with a projector (append-only) or with :meth:`load`.

        ``append_only`` by default; a store whose sessions come in both kinds (Gemini: JSONL
        logs and rewritten JSON files) answers per source."""
        return self.append_only

    def change_marker(self, source: SessionSource) -> object:
        """What else moves when the session may have changed although ``source.path``'s own
        signature did not (e.g. SQLite's ``-wal`` file, where a live writer puts new rows);
        ``None`` when the path says it all. The engine re-reads a rewritten-format session
        when this value changes. Must be cheap (stat calls)."""
        return None

    def new_projector(self, source: SessionSource) -> TranscriptProjector:
        """An empty projector for an append-only source."""
        raise TypeError(f"{self.runtime} sessions are not append-only")

    def load(self, source: SessionSource) -> LoadedSession:
        """Read a rewritten-format session in full."""
        raise TypeError(f"{self.runtime} sessions are read incrementally")
