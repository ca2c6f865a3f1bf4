"""Snapshot tests: every public fixture of these agents, normalized, against a committed
JSON snapshot in ``tests/snapshots/<runtime>/``.

Regenerate after an intended change with ``HANGAR_UPDATE_SNAPSHOTS=1 make test`` (read at
import time: the autouse isolation fixture drops ``HANGAR_*`` variables before each test)
and review the diff. The fixtures stay in the shared folder; only the normalized output is
committed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hangar.agents.base import AgentStore
from hangar.agents.homes import AgentHome
from hangar.agents.registry import store_classes
from hangar.testing.conformance import read_session

from .homes import (
    copilot_home,
    cursor_home,
    gemini_home,
    kiro_home,
    opencode_storage_home,
    qwen_home,
)
from .samples import continue_sample_home, opencode_sqlite_home

UPDATE = os.environ.get("HANGAR_UPDATE_SNAPSHOTS") == "1"
SNAPSHOTS = Path(__file__).resolve().parents[1] / "snapshots"


def normalized(store: AgentStore) -> dict[str, Any]:
    """Every session of the store as plain JSON data, keyed by its path in the home."""
    out: dict[str, Any] = {}
    for source in store.discover():
        messages, summary = read_session(store, source)
        key = source.path.relative_to(store.home.root).as_posix()
        if key in out or source.path.suffix == ".db" or source.path.name == "data.sqlite3":
            key = f"{key}#{source.session_id}"
        out[key] = {
            "source": {
                "sessionId": source.session_id,
                "title": source.title,
                "workspacePath": source.workspace_path,
                "createdAt": source.created_at,
                "parentSessionId": source.parent_session_id,
                "archived": source.archived,
            },
            "summary": msgspec.to_builtins(summary),
            "messages": msgspec.to_builtins(messages),
        }
    return out


def check_snapshot(runtime: str, name: str, data: dict[str, Any]) -> None:
    path = SNAPSHOTS / runtime / f"{name}.json"
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"snapshot {path.name} was missing and has been written; rerun")
    assert json.loads(text) == json.loads(path.read_text(encoding="utf-8")), (
        f"{runtime}/{name}: normalized output differs from the snapshot "
        "(HANGAR_UPDATE_SNAPSHOTS=1 regenerates it)"
    )


def _store(runtime: str, home: AgentHome) -> AgentStore:
    return store_classes()[runtime](home)


BUILDERS = {
    "gemini": gemini_home,
    "copilot": copilot_home,
    "qwen": qwen_home,
    "cursor": cursor_home,
    "kiro": kiro_home,
}


@pytest.mark.parametrize("runtime", sorted(BUILDERS))
def test_fixture_snapshots(runtime: str, public_fixtures: Path, tmp_path: Path) -> None:
    home = BUILDERS[runtime](public_fixtures, tmp_path / runtime)
    data = normalized(_store(runtime, home))
    assert data, "fixtures were found"
    check_snapshot(runtime, "fixtures", data)


@pytest.mark.parametrize("tree", ["storage_v2", "storage_legacy"])
def test_opencode_storage_snapshots(tree: str, public_fixtures: Path, tmp_path: Path) -> None:
    home = opencode_storage_home(public_fixtures, tmp_path / "oc", tree)
    check_snapshot("opencode", tree, normalized(_store("opencode", home)))


def test_opencode_sqlite_sample_snapshot(tmp_path: Path) -> None:
    """CL-001/CL-002/CL-036: todowrite lists become blocks; the sub-agent's stays inside."""
    data = normalized(_store("opencode", opencode_sqlite_home(tmp_path / "oc")))
    # Ids embed the writer's clock, which is fixed, so the snapshot is stable.
    check_snapshot("opencode", "sqlite_sample", data)


def test_continue_sample_snapshot(tmp_path: Path) -> None:
    """CL-003/CL-005: a successful Checklist call commits its list as a block."""
    data = normalized(_store("continue", continue_sample_home(tmp_path / "cn")))
    check_snapshot("continue", "sample", data)
