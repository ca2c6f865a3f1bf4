"""``/api/runtime-work/file-changes/*`` forwards the card's request to the task's device."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hangar.composition import LocalHangar

from .conftest import agent_turn, write_rollout

TOKEN = "file-changes-test-token-0123456789"


@pytest.fixture
def client(hangar_home: Path) -> Iterator[TestClient]:
    hangar = LocalHangar.open()
    with TestClient(
        hangar.create_app(TOKEN),
        base_url="http://127.0.0.1",
        headers={"Authorization": f"Bearer {TOKEN}"},
        raise_server_exceptions=False,
    ) as test_client:
        yield test_client
    hangar.close()


def test_review_and_revert_through_the_api(
    client: TestClient, isolated_home: Path, workspace: Path
) -> None:
    """The card's calls carry deviceId + workspacePath to the device; a missing directory
    and a repeated revert come back as errors the card can show."""
    before = (workspace / "README.md").read_text()
    changes = agent_turn(workspace, {"README.md": "# shop\n\nrewritten\n"})
    write_rollout(isolated_home, workspace, [("t-api", changes)])
    body = client.get("/api/runtime-work").json()
    (task,) = [t for p in body["projects"] for t in p["tasks"]]
    address = {
        "deviceId": task["deviceId"],
        "localTaskId": task["localTaskId"],
        "workspacePath": task["workspacePath"],
        "artifactId": "turn-file-changes/0/t-api",
    }
    review = client.post("/api/runtime-work/file-changes/review", json=address)
    assert review.status_code == 200, review.text
    checksum = review.json()["checksum"]
    done = client.post(
        "/api/runtime-work/file-changes/revert", json={**address, "checksum": checksum}
    )
    assert done.status_code == 200 and (workspace / "README.md").read_text() == before
    again = client.post(
        "/api/runtime-work/file-changes/revert", json={**address, "checksum": checksum}
    )
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "file_changes_already_reverted"
    bad = client.post(
        "/api/runtime-work/file-changes/review", json={**address, "artifactId": "x/../y"}
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_artifact_id"
    workspace.rename(workspace.with_name("moved-away"))
    gone = client.post("/api/runtime-work/file-changes/review", json=address)
    assert gone.status_code == 404 and "is gone" in gone.json()["error"]["message"]
    no_sum = client.post("/api/runtime-work/file-changes/revert", json=address)
    assert no_sum.status_code == 422
