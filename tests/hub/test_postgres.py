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

from .postgres_server import postgres_server, unavailable_reason


@pytest.fixture
def pg_engine() -> Iterator[Engine]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
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
