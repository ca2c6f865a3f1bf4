"""Following the sessions one CLI process switches between (LR-179, LR-181).

A CLI's ``/clear``, ``/new`` or ``/resume`` inside the TUI moves the run to another session.
:class:`SwitchingReader` follows exactly the sessions a per-process source names (for Gemini
and Copilot their OpenTelemetry file, filtered to the run's own process), never "the
newest file": a session started in another terminal in the same folder is named by nothing
the run reads, so it is never read (LR-173).

Each session named gets its own reader, opened once its file is there and says it holds that
session, and kept: going back to a session goes on where the run stopped. Only the
current session is read while the CLI runs: the process writes to the session it is in, and
its name may reach the telemetry file after its first records reach the session's file, so
reading another session too would report the new session's input before the old one's last
reply. When the current session changes, the one left is read to its end and finished (its
last reply settled) before the new one is read; at the end every session is read once more.
Where a new reader starts is the provider's: a session started inside the run from its
beginning, a resumed one from the resume record the CLI writes into it.
"""

from __future__ import annotations

from collections.abc import Callable

from hangar.localrun.providers.followed import Seen, SessionReader

SessionNames = Callable[[], list[str]]
"""The session ids the CLI process named since the last call, oldest first."""

OpenSession = Callable[[str], SessionReader | None]
"""A reader for a named session, or ``None`` while its file is not there (yet)."""


class SwitchingReader(SessionReader):
    def __init__(
        self, first: SessionReader, names: SessionNames, open_session: OpenSession
    ) -> None:
        self.readers: dict[str, SessionReader] = {first.session_id: first}
        self.session_id = first.session_id
        self.names = names
        self.open_session = open_session
        self.waiting: list[str] = []
        """Sessions named whose file is not there yet (tried again on each read)."""

    def read(self) -> list[Seen]:
        out: list[Seen] = []
        for session in self.names():
            if session in self.waiting:
                self.waiting.remove(session)
            self.waiting.append(session)  # the newest name wins
        for session in list(self.waiting):
            if session == self.session_id:
                self.waiting.remove(session)
                continue
            reader = self.readers.get(session) or self.open_session(session)
            if reader is None:
                continue
            self.waiting.remove(session)
            self.readers[session] = reader
            left = self.readers[self.session_id]
            out += left.read() + left.finish()  # the session left: its last reply is settled
            self.session_id = session
        return out + self.readers[self.session_id].read()

    def finish(self) -> list[Seen]:
        out: list[Seen] = []
        for reader in self.readers.values():  # what a session left got after it was left
            out += reader.read() + reader.finish()
        return out
