"""Choosing where a task is copied to: two executors with their own homes,
connecting from 127.0.0.2 and 127.0.0.3, real Codex sessions, real git clones of one bare
remote, and a real hub — everything through the hub's HTTP API."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import scenario_from_dict

from .test_copy_across import bare_remote, clone_with_a_session, transcript, two_devices
from .test_remote_turns import SLOW

pytestmark = pytest.mark.real_agents


def targets(http: httpx.Client, address: dict[str, str]) -> dict[str, Any]:
    answer = http.post("/api/runtime-work/copy-targets", json=address)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def kinds(found: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(t["kind"], t["deviceId"], t.get("workspacePath")) for t in found["targets"]]


def project_at(view: dict[str, Any], device_id: str, path: str) -> dict[str, Any]:
    (found,) = [
        p for p in view["projects"] if (p["deviceId"], p["workspacePath"]) == (device_id, path)
    ]
    return found


def test_targets_stay_in_the_project_and_an_unbound_device_is_prepared_first(
    agent_sandbox: AgentSandbox, tmp_path: Path
) -> None:
    """RW-301, RW-302, RW-303, RW-304, RW-305: the laptop's task offers its own device and
    the desk as unbound — not the desk's clone nor its unrelated project, which the desk
    reports; a directory the desk does not report is refused and binds nothing; prepared
    (label ``workspace``), the desk's clone is a target, listed as the laptop's Project's with
    that kind, and the copy goes there; a new blank directory prepared as ``worktree`` lists
    under the Project's name, not its own; the copied task on the desk offers the laptop's
    folder back."""
    remote = bare_remote(tmp_path / "git")
    source_repo = clone_with_a_session(agent_sandbox, remote, "Look at the shop")
    with two_devices(agent_sandbox, tmp_path) as (hub, desk_box, laptop, desk):
        desk_repo = clone_with_a_session(desk_box, remote, "Desk looks at the shop")
        other = desk_box.host(desk_box.homes.home) / "projects" / "garden"
        other.mkdir(parents=True)
        scenario = scenario_from_dict({"name": "garden", "turns": [{"text": "Garden."}]})
        ran = desk_box.run_agent("codex", scenario, "Tend the garden", cwd="projects/garden")
        assert ran.returncode == 0, ran.stderr
        laptop_id, desk_id = laptop.device.device_id, desk.device.device_id
        with hub.client(timeout=SLOW) as http:
            view = http.get("/api/runtime-work").json()
            (source,) = project_at(view, laptop_id, str(source_repo))["tasks"]
            address = {"deviceId": laptop_id, "localTaskId": source["localTaskId"]}
            reported = http.get("/api/runtime-work/projects").json()
            desk_dirs = {
                p["workspacePath"] for d in reported["devices"] if d["deviceId"] == desk_id
                for p in d["projects"]
            }  # fmt: skip
            assert {str(desk_repo), str(other)} <= desk_dirs  # the desk has them…

            first = targets(http, address)
            assert first["projectName"] == "shop"
            assert kinds(first) == [  # …but neither is this Project's (RW-305)
                ("this_device", laptop_id, str(source_repo)),
                ("unbound_device", desk_id, None),
            ]

            prepare = {**address, "targetDeviceId": desk_id, "label": "workspace"}
            refused = http.post(
                "/api/runtime-work/device-workspaces/prepare",
                json={**prepare, "workspacePath": str(tmp_path / "not-on-the-desk")},
            )
            assert refused.status_code == 400, refused.text
            assert "reports no directory" in refused.json()["error"]["message"]
            bad_label = http.post(
                "/api/runtime-work/device-workspaces/prepare",
                json={**prepare, "label": "project", "workspacePath": str(desk_repo)},
            )
            assert bad_label.status_code == 422, bad_label.text
            assert kinds(targets(http, address))[1][0] == "unbound_device"  # nothing bound
            unbound = http.post(
                "/api/runtime-work/copy",
                json={**address, "lastTurnId": transcript(http, address)[-1]["turnId"],
                      "newLocalTaskId": uuid.uuid4().hex, "targetDeviceId": desk_id,
                      "targetWorkspacePath": str(desk_repo)},
            )  # fmt: skip
            assert unbound.status_code == 400, unbound.text  # not this Project's yet (RW-301)
            assert "not a directory of this task's project" in unbound.json()["error"]["message"]
            assert not (desk.settings.paths.home / "worktrees").exists()

            prepared = http.post(
                "/api/runtime-work/device-workspaces/prepare",
                json={**prepare, "workspacePath": str(desk_repo)},
            )
            assert prepared.status_code == 200, prepared.text
            assert prepared.json()["label"] == "workspace"
            second = targets(http, address)
            assert kinds(second) == [
                ("this_device", laptop_id, str(source_repo)),
                ("device_workspace", desk_id, str(desk_repo)),
            ]
            listed = http.get("/api/runtime-work").json()
            desk_shop = project_at(listed, desk_id, str(desk_repo))
            laptop_shop = project_at(listed, laptop_id, str(source_repo))
            assert desk_shop["projectKey"] == laptop_shop["projectKey"] == second["projectKey"]
            assert {t["workspaceKind"] for t in desk_shop["tasks"]} == {"workspace"}
            assert "projectKey" not in project_at(listed, desk_id, str(other))

            new_id = uuid.uuid4().hex
            last_turn = transcript(http, address)[-1]["turnId"]
            copied = http.post(
                "/api/runtime-work/copy",
                json={
                    **address,
                    "lastTurnId": last_turn,
                    "newLocalTaskId": new_id,
                    "targetDeviceId": desk_id,
                    "targetWorkspacePath": second["targets"][1]["workspacePath"],
                },
            )
            assert copied.status_code == 200, copied.text
            assert (copied.json()["deviceId"], copied.json()["method"]) == (desk_id, "git_fork")
            copy_address = {"deviceId": desk_id, "localTaskId": new_id}
            assert transcript(http, copy_address)[-1]["content"] == "Looked at the shop."
            back = targets(http, copy_address)  # the copy finds the laptop's folder (RW-301)
            assert back["projectKey"] == second["projectKey"]
            assert ("device_workspace", laptop_id, str(source_repo)) in kinds(back)

            review = http.post(
                "/api/runtime-work/device-workspaces/prepare",
                json={**prepare, "label": "worktree", "newProjectName": "shop-review"},
            )
            assert review.status_code == 200, review.text
            review_path = review.json()["workspacePath"]
            assert Path(review_path).is_dir() and Path(review_path).name == "shop-review"
            listed = http.get("/api/runtime-work").json()
            shown = project_at(listed, desk_id, review_path)
            assert (shown["name"], shown["workspaceKind"]) == ("shop", "worktree")  # RW-305
            assert ("device_workspace", desk_id, review_path) in kinds(targets(http, address))
