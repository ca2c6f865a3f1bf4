"""Snapshots of the OpenCode 1.18.33 and cn 1.5.47 sessions in the demo corpus (written by the
real CLIs): todo and Checklist data kept as checklist blocks on their requests' replies.

Ids, times and durations differ on every regeneration of the corpus (``make corpus``), so
they are left out of the snapshot; everything else must match. Regenerate the snapshots
with ``HANGAR_UPDATE_SNAPSHOTS=1`` after an intended change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from hangar.agents.continue_cli import ContinueStore
from hangar.agents.homes import AgentHome
from hangar.agents.opencode import OpenCodeStore
from hangar.testing.conformance import assert_store_conforms, read_session

from .test_snapshots import check_snapshot

CORPUS = Path(__file__).resolve().parents[2] / "demo" / "corpus" / "home"
VOLATILE = {
    "id",
    "turnId",
    "createdAt",
    "completedAt",
    "toolUseId",
    "durationMs",
    "created_at",
    "updated_at",
    "sessionId",
}


def stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("demo corpus not present (make corpus)")
    return CORPUS


@pytest.mark.parametrize(
    ("name", "store_cls", "where"),
    [
        ("opencode", OpenCodeStore, ".local/share/opencode"),
        ("continue", ContinueStore, ".continue"),
    ],
)
def test_real_sessions_snapshot(
    name: str,
    store_cls: type[OpenCodeStore | ContinueStore],
    where: str,
    corpus: Path,
    tmp_path: Path,
) -> None:
    """CL-001, CL-002, CL-003, CL-005, CL-031, CL-038: each todowrite / Checklist call's list
    is a block on the reply of its request; the current list is the last turn's own."""
    home = AgentHome(name, corpus / where, None)
    store = store_cls(home)
    data: dict[str, Any] = {}
    for source in store.discover():
        messages, summary = read_session(store, source)
        data[source.title or source.session_id] = stable(
            {
                "workspacePath": source.workspace_path,
                "summary": msgspec.to_builtins(summary),
                "messages": msgspec.to_builtins(messages),
            }
        )
    assert data
    check_snapshot(name, "corpus", data)
    assert_store_conforms(store_cls, home, tmp_path / "work")
