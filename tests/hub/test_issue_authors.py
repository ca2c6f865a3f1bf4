"""Who opened an issue: stored as a member, shown by the member's name, also for issues that
existed before the hub recorded authors (migration 0011)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from hangar.hub.store.database import (
    alembic_config,
    create_hub_engine,
    sqlite_url,
    upgrade_hub_database,
)
from hangar.hub.store.issues import get_issue
from hangar.hub.store.workspaces import ensure_workspace


def test_an_issue_created_through_the_api_names_its_author(client: TestClient) -> None:
    members = client.get("/api/members").json()["members"]
    owner = next(m for m in members if m["role"] == "owner")
    created = client.post("/api/issues", json={"title": "Authored"}).json()
    assert created["authorId"] == owner["id"]
    assert created["authorName"] == owner["name"]
    listed = client.get("/api/issues").json()["issues"]
    assert [i["authorName"] for i in listed if i["key"] == created["key"]] == [owner["name"]]


def test_issues_from_before_authors_are_the_owners_after_upgrade(tmp_path: Path) -> None:
    engine = create_hub_engine(sqlite_url(tmp_path / "hub.db"))
    command.upgrade(alembic_config(engine), "0009")
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO workspaces (id, name, key_prefix, next_issue_number, created_at)"
                " VALUES ('w1', 'hangar', 'OLD', 2, '2026-11-01 10:00:00')"
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO members (id, workspace_id, name, role, created_at) VALUES"
                " ('m-agent', 'w1', 'Codex agent', 'agent', '2026-11-01 09:00:00'),"
                " ('m-owner', 'w1', 'Ada Lovelace', 'owner', '2026-11-01 10:00:00')"
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO issues (id, workspace_id, number, title, description, status,"
                " priority, created_at, updated_at) VALUES ('i1', 'w1', 1, 'Old issue', '',"
                " 'todo', 'none', '2026-11-01 10:00:00', '2026-11-01 10:00:00')"
            )
        )
    upgrade_hub_database(engine)
    workspace = ensure_workspace(engine, "ignored", prefix="OLD")
    issue = get_issue(engine, workspace, "OLD-1")
    assert (issue["authorId"], issue["authorName"]) == ("m-owner", "Ada Lovelace")
    engine.dispose()
