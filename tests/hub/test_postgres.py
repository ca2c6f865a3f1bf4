"""The hub database on a real PostgreSQL: same migrations, same queries (DESIGN §1, §6)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Engine

from hangar.hub.store import comments as comments_repo
from hangar.hub.store import issues as issues_repo
from hangar.hub.store.database import open_hub_database
from hangar.hub.store.schema import metadata
from hangar.hub.store.workspaces import create_project, ensure_workspace

from .postgres_server import postgres_server, skip_unless_available


@pytest.fixture
def pg_engine() -> Iterator[Engine]:
    skip_unless_available()
    with postgres_server() as url:
        engine = open_hub_database(url)
        try:
            yield engine
        finally:
            engine.dispose()


def test_migrations_match_the_metadata_on_postgresql(pg_engine: Engine) -> None:
    assert pg_engine.dialect.name == "postgresql"
    with pg_engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def test_the_issue_tracker_runs_on_postgresql(pg_engine: Engine) -> None:
    workspace = ensure_workspace(pg_engine, "owner")
    assert ensure_workspace(pg_engine, "other") == workspace
    project = create_project(pg_engine, workspace, "web")
    first = issues_repo.create_issue(
        pg_engine, workspace, {"title": "a", "labels": ["bug"], "projectId": project["id"]}
    )
    second = issues_repo.create_issue(
        pg_engine, workspace, {"title": "b 100%", "parentKey": first["key"], "status": "todo"}
    )
    keys: list[str] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(5):
                keys.append(issues_repo.create_issue(pg_engine, workspace, {"title": "r"})["key"])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(set(keys)) == 30
    found = issues_repo.list_issues(pg_engine, workspace, issues_repo.IssueFilter(q="100%"))
    assert [i["key"] for i in found] == [second["key"]]
    labelled = issues_repo.IssueFilter(label="bug", project_id=project["id"])
    assert [i["key"] for i in issues_repo.list_issues(pg_engine, workspace, labelled)] == ["HGR-1"]
    patched = issues_repo.update_issue(pg_engine, workspace, second["key"], {"parentKey": None})
    assert patched["parentKey"] is None
    top = comments_repo.add_comment(pg_engine, workspace, first["key"], "hi")
    comments_repo.add_comment(pg_engine, workspace, first["key"], "re", parent_id=top["id"])
    thread = comments_repo.thread(comments_repo.list_comments(pg_engine, workspace, "HGR-1"))
    assert [c["body"] for c in thread[0]["replies"]] == ["re"]


def test_notification_deliveries_are_queued_and_claimed_once_on_postgresql(
    pg_engine: Engine,
) -> None:
    """RW-332 on PostgreSQL: the same final reply queued twice (two replicas, or a send and
    the watcher) is one delivery, and two replicas claiming at once take each row once."""
    from hangar.hub.notify import store
    from hangar.protocol.events import TaskUpdated

    workspace = ensure_workspace(pg_engine, "owner")
    store.add_target(pg_engine, workspace.owner_id, "hook", "json://127.0.0.1:9/h", "global")
    store.set_enabled(pg_engine, workspace.owner_id, True)
    updates = [
        TaskUpdated(local_task_id=f"t{n}", status="done", content="ok", update_key=f"m{n}")
        for n in range(20)
    ]
    added = [store.enqueue(pg_engine, workspace.owner_id, "dev", u) for u in updates + updates]
    assert added == [1] * 20 + [0] * 20
    claims: list[list[str]] = [[], []]

    def claim(into: list[str]) -> None:
        while batch := store.claim_due(pg_engine, limit=3):
            into.extend(d.id for d in batch)

    threads = [threading.Thread(target=claim, args=(c,)) for c in claims]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    taken = claims[0] + claims[1]
    assert len(taken) == len(set(taken)) == 20
