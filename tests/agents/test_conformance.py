"""Every built-in agent store passes the conformance suite of ``hangar.testing``."""

from __future__ import annotations

from pathlib import Path

import pytest

from hangar.agents.base import AgentStore
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.testing.conformance import assert_store_conforms, check_store

from .homes import FIXTURE_HOMES, opencode_storage_home
from .samples import continue_sample_home, opencode_sqlite_home


def _store(runtime: str) -> type[AgentStore]:
    classes = store_classes()
    if runtime not in classes:
        pytest.skip(f"no {runtime} store registered")
    return classes[runtime]


@pytest.mark.parametrize("runtime", sorted(FIXTURE_HOMES))
def test_store_conforms_on_public_fixtures(
    runtime: str, public_fixtures: Path, tmp_path: Path
) -> None:
    """Discover is cheap, every fixture parses, incremental equals full, garbage is counted."""
    store = _store(runtime)
    home = FIXTURE_HOMES[runtime](public_fixtures, tmp_path / "home-sample")
    report = assert_store_conforms(store, home, tmp_path / "work")
    assert report.sessions, "the sample home has sessions"


@pytest.mark.parametrize("tree", ["storage_v2", "storage_legacy"])
def test_opencode_json_storage_conforms(tree: str, public_fixtures: Path, tmp_path: Path) -> None:
    home = opencode_storage_home(public_fixtures, tmp_path / "oc", tree)
    assert_store_conforms(_store("opencode"), home, tmp_path / "work")


def test_opencode_sqlite_conforms(tmp_path: Path) -> None:
    report = assert_store_conforms(
        _store("opencode"), opencode_sqlite_home(tmp_path / "oc"), tmp_path / "work"
    )
    assert report.discover_opens <= 2, "one database connection lists every session"


def test_continue_conforms(tmp_path: Path) -> None:
    assert_store_conforms(_store("continue"), continue_sample_home(tmp_path / "cn"), tmp_path / "w")


def test_every_registered_store_has_a_sample_home() -> None:
    """A new built-in agent must be added to the conformance run."""
    covered = set(FIXTURE_HOMES) | {"opencode", "continue"}
    assert set(store_classes()) <= covered


class _BrokenStore(AgentStore):
    """A store that breaks the projector contract: it re-sends nothing after the first take."""

    runtime = "broken-demo"

    def discover(self):  # type: ignore[no-untyped-def]
        from hangar.agents.base import SessionSource

        # Wrong too: a store must never write into the agent's home.
        (self.home.root / "index.cache").write_text("x")
        for path in sorted(self.home.root.glob("*.jsonl")):
            yield SessionSource(self.runtime, path.stem, path, {"path": str(path)})

    def new_projector(self, source):  # type: ignore[no-untyped-def]
        from hangar.agents.base import ProjectionDelta, SessionSummary, TranscriptProjector
        from hangar.model import Message

        class Projector(TranscriptProjector):
            def __init__(self) -> None:
                self.messages: list[Message] = []
                self.sent = 0

            def feed(self, line: bytes) -> None:
                n = len(self.messages)
                self.messages.append(Message(n, f"m{n}", "user", f"m{n}", content=line.decode()))

            def take(self) -> ProjectionDelta:
                # Wrong: always restarts at 0 but only sends the new messages.
                delta = ProjectionDelta(0, self.messages[self.sent :])
                self.sent = len(self.messages)
                return delta

            def summary(self) -> SessionSummary:
                return SessionSummary(message_count=len(self.messages))

        return Projector()


def test_the_suite_catches_a_broken_projector(tmp_path: Path) -> None:
    """The suite can fail: wrong deltas, uncounted garbage and a write into the home are
    each reported."""
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "s.jsonl").write_text("one\ntwo\nthree\n")
    report = check_store(
        _BrokenStore, AgentHome("broken-demo", tmp_path / "broken", None), tmp_path / "work"
    )
    text = "\n".join(report.problems)
    assert "differ from a full read" in text
    assert "not counted in skipped" in text
    assert "reading changed the agent's file index.cache" in text


def test_the_suite_catches_describe_disagreeing_with_discover(tmp_path: Path) -> None:
    from hangar.agents.base import SessionSource
    from hangar.agents.cursor import CursorStore
    from hangar.testing.conformance import check_incremental_discovery

    class Drifting(CursorStore):
        def describe(self, path: Path) -> SessionSource | None:
            found = super().describe(path)
            return (
                None
                if found is None
                else SessionSource(
                    found.runtime, found.session_id, found.path, found.runtime_handle, title="other"
                )
            )

    transcripts = tmp_path / "cursor" / "projects" / "p" / "agent-transcripts" / "s"
    transcripts.mkdir(parents=True)
    (transcripts / "s.jsonl").write_text(
        '{"role": "user", "message": {"content": [{"type": "text", "text": "hi"}]}}\n'
    )
    store = Drifting(AgentHome("cursor", tmp_path / "cursor", None))
    sources = list(CursorStore(store.home).discover())
    assert check_incremental_discovery(store, sources) == [
        "describe(s.jsonl) differs from discover"
    ]
