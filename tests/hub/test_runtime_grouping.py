"""The hub's light grouping of LocalTasks (pure functions over executor answers)."""

from __future__ import annotations

from typing import Any

from hangar.hub.runtime_work import (
    Bound,
    DeviceInfo,
    archived_view,
    device_labels,
    group_tasks,
    project_id,
    result_project_id,
)

LOCAL = DeviceInfo("dev-local", "laptop", local=True)
REMOTE = DeviceInfo("dev-remote", "server", local=False, address="10.1.2.3")
NO_ADDRESS = DeviceInfo("dev-other", "", local=False)


def task(local_id: str, path: str, kind: str = "workspace", **extra: Any) -> dict[str, Any]:
    return {
        "deviceId": extra.pop("deviceId", "dev-local"),
        "localTaskId": local_id,
        "title": local_id,
        "workspacePath": path,
        "groupWorkspacePath": extra.pop("group", path),
        "workspaceKind": kind,
        "updatedAt": extra.pop("updatedAt", "2026-11-01T00:00:00Z"),
        "archived": extra.pop("archived", False),
        **extra,
    }


def test_device_labels_only_with_several_devices() -> None:
    """RW-045/046/047: one device shows nothing; several show the remote address (or id)."""
    assert device_labels([LOCAL]) == {"dev-local": None}
    labels = device_labels([LOCAL, REMOTE, NO_ADDRESS])
    assert labels == {"dev-local": None, "dev-remote": "10.1.2.3", "dev-other": "dev-other"}


def test_projects_are_keyed_by_device_and_group_path() -> None:
    """RW-009/036/168: same folder on two devices is two Projects; worktrees fold in."""
    body = group_tasks(
        [LOCAL, REMOTE],
        {
            "dev-local": [
                task("a", "/repo"),
                task("wt", "/repo/.worktrees/x", "worktree", group="/repo", worktreeId="x"),
            ],
            "dev-remote": [task("b", "/repo", deviceId="dev-remote")],
        },
    )
    projects = {(p["deviceId"], p["workspacePath"]): p for p in body["projects"]}
    assert set(projects) == {("dev-local", "/repo"), ("dev-remote", "/repo")}
    local = projects[("dev-local", "/repo")]
    assert [t["localTaskId"] for t in local["tasks"]] == ["a", "wt"]
    assert local["tasks"][1]["workspacePath"] == "/repo/.worktrees/x"  # RW-041
    assert local["deviceLabel"] is None
    assert projects[("dev-remote", "/repo")]["deviceLabel"] == "10.1.2.3"
    assert local["projectId"] == project_id("dev-local", "/repo")
    assert local["projectId"] != projects[("dev-remote", "/repo")]["projectId"]


def test_chat_and_folderless_tasks_are_conversations_never_a_third_group() -> None:
    """RW-015/319/320: chat → Conversations; no 'unmapped' group exists."""
    body = group_tasks(
        [LOCAL],
        {"dev-local": [task("c", "/h/Documents/Codex/2026-11-01/x", "chat"), task("n", "")]},
    )
    assert body["projects"] == []
    assert {t["localTaskId"] for t in body["conversations"]} == {"c", "n"}
    assert set(body) == {"devices", "projects", "conversations"}


def test_archived_tasks_leave_the_list_and_order_is_newest_first() -> None:
    body = group_tasks(
        [LOCAL],
        {
            "dev-local": [
                task("old", "/p", updatedAt="2026-01-01T00:00:00Z"),
                task("new", "/p", updatedAt="2026-06-01T00:00:00Z"),
                task("gone", "/p", archived=True),
            ]
        },
    )
    assert [t["localTaskId"] for t in body["projects"][0]["tasks"]] == ["new", "old"]


def test_archived_view_counts_per_project() -> None:
    """RW-160/166/168: archived items with their Project and counts; worktrees don't split."""
    view = archived_view(
        [
            task("a", "/repo", archived=True),
            task("w", "/repo/.worktrees/x", "worktree", group="/repo", archived=True),
            task("c", "/h/Documents/Codex/x", "chat", archived=True),
            task("live", "/repo"),
        ]
    )
    assert view["total"] == 3
    assert view["projectGroups"] == [
        {"projectId": project_id("dev-local", "/repo"), "projectName": "repo", "count": 2}
    ]
    chat = next(i for i in view["items"] if i["localTaskId"] == "c")
    assert chat["projectId"] is None


def test_search_results_map_to_their_project() -> None:
    """RW-057/058: the hub derives the Project from the result's workspace; chats have none."""
    result = {"deviceId": "dev-local", "workspacePath": "/repo", "groupWorkspacePath": "/repo"}
    assert result_project_id(result) == project_id("dev-local", "/repo")
    nested = {"address": {"deviceId": "dev-local", "workspacePath": "/repo"}}
    assert result_project_id(nested) == project_id("dev-local", "/repo")
    chat = {"deviceId": "dev-local", "workspacePath": "/h/x", "workspaceKind": "chat"}
    assert result_project_id(chat) is None


def test_a_bound_label_is_the_workspace_kind_and_a_worktree_folds_into_its_project() -> None:
    """RW-304, RW-305: a directory bound with the label ``worktree`` lists its tasks with that
    workspaceKind; on the Project's own device it folds into the Project, on another device it
    carries the Project's name — never a Project of its own name. A bound directory with no
    task yet is listed; an unbound one is left as the device reports it."""
    key = project_id("dev-local", "/repo/shop")
    bound = [
        Bound("dev-local", "/repo/shop", "workspace", key),
        Bound("dev-local", "/review/shop-copy", "worktree", key),
        Bound("dev-remote", "/srv/checkout", "worktree", key),
        Bound("dev-remote", "/srv/empty", "workspace", key),
    ]
    tasks = {
        "dev-local": [
            task("a", "/repo/shop"),
            task("b", "/review/shop-copy"),
            task("c", "/elsewhere/other"),
        ],
        "dev-remote": [task("d", "/srv/checkout", deviceId="dev-remote")],
    }
    body = group_tasks([LOCAL, REMOTE], tasks, bound=bound)
    by_folder = {(p["deviceId"], p["workspacePath"]): p for p in body["projects"]}
    assert set(by_folder) == {
        ("dev-local", "/repo/shop"),
        ("dev-local", "/elsewhere/other"),
        ("dev-remote", "/srv/checkout"),
        ("dev-remote", "/srv/empty"),
    }
    shop = by_folder[("dev-local", "/repo/shop")]
    assert sorted(t["localTaskId"] for t in shop["tasks"]) == ["a", "b"]
    assert {t["localTaskId"]: t["workspaceKind"] for t in shop["tasks"]} == {
        "a": "workspace",
        "b": "worktree",
    }
    remote = by_folder[("dev-remote", "/srv/checkout")]
    assert (remote["name"], remote["workspaceKind"], remote["projectKey"]) == (
        "shop",
        "worktree",
        key,
    )
    assert [t["workspaceKind"] for t in remote["tasks"]] == ["worktree"]
    assert by_folder[("dev-remote", "/srv/empty")]["tasks"] == []
    other = by_folder[("dev-local", "/elsewhere/other")]
    assert "projectKey" not in other and other["name"] == "other"
    assert tasks["dev-local"][1]["workspaceKind"] == "workspace"  # the device's list is intact
