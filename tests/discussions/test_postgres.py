"""Discussions on a real PostgreSQL: the same migrations and queries, and concurrent writers
queue on the discussion's row."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy.engine import Engine

from hangar.errors import HangarError
from hangar.hub.store import discussions as repo
from hangar.hub.store.database import open_hub_database
from hangar.hub.store.workspaces import Workspace, ensure_workspace
from hangar.localrun.discussion.plans import plan_digest
from hub.postgres_server import postgres_server, unavailable_reason  # tests/hub, a sibling

PLAN = "# Plan\n\n1. Do it.\n"


@pytest.fixture
def pg() -> Iterator[tuple[Engine, Workspace]]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with postgres_server() as url:
        engine = open_hub_database(url)
        try:
            yield engine, ensure_workspace(engine, "owner")
        finally:
            engine.dispose()


def _together(calls: list[Callable[[], object]]) -> tuple[list[object], list[BaseException]]:
    results: list[object] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> None:
        barrier.wait()
        try:
            results.append(call())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors


def test_discussions_on_postgresql(pg: tuple[Engine, Workspace]) -> None:
    engine, workspace = pg
    fields = {"cliName": "codex", "provider": "codex", "providerSessionId": "t-1"}
    discussion, created = repo.open_discussion(engine, workspace, {**fields, "clientId": "cli-a"})
    assert created
    repo.add_turn(engine, workspace, discussion["id"], {"role": "plan", "content": PLAN,
                  "source": "codex-app-server", "sourceKey": "p"})  # fmt: skip
    repo.renew(engine, workspace, discussion["id"], "cli-a", release=True)
    # Two terminals resume at once: exactly one holds it, the other is told it is in use.
    results, errors = _together(
        [
            lambda who=who: repo.open_discussion(engine, workspace, {**fields, "clientId": who})
            for who in ("cli-b", "cli-c")
        ]
    )
    assert len(results) == 1 and [type(e) for e in errors] == [repo.DiscussionInUse]
    # A retried "create" racing itself makes one issue.
    body = {"planDigest": plan_digest(PLAN), "title": "Plan"}
    made, failed = _together(
        [lambda: repo.create_issue(engine, workspace, discussion["id"], dict(body))] * 3
    )
    assert failed == [] and {issue["key"] for issue, _ in made} == {"HGR-1"}  # type: ignore[index]
    assert sorted(new for _, new in made) == [False, False, True]  # type: ignore[misc]
    found = repo.get_discussion(engine, workspace, discussion["id"])
    assert (found["status"], found["issueKey"], len(found["turns"])) == (
        "issue_created",
        "HGR-1",
        1,
    )
    with pytest.raises(HangarError):
        repo.add_turn(engine, workspace, discussion["id"], {"role": "tool_use", "content": "x",
                      "source": "s", "sourceKey": "k"})  # fmt: skip
