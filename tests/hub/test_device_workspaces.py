"""Device Workspaces in the hub database, on a migrated SQLite database."""

from __future__ import annotations

from pathlib import Path

import pytest

from hangar.errors import UsageError
from hangar.hub.store.database import open_hub_database
from hangar.hub.store.device_workspaces import (
    DeviceWorkspace,
    bind_device_workspace,
    list_device_workspaces,
)
from hangar.hub.store.workspaces import ensure_workspace


def test_a_directory_belongs_to_one_project_and_keeps_its_binding(tmp_path: Path) -> None:
    """Binding again under the same project takes the new label; a directory
    bound to another project is refused and stays with the first one; a label other than
    ``workspace``/``worktree`` is refused and writes nothing."""
    engine = open_hub_database(tmp_path / "hub.db")
    workspace = ensure_workspace(engine, "owner")
    shop = DeviceWorkspace("shop-key", "desk", "/srv/shop", "workspace")
    bind_device_workspace(engine, workspace, shop)
    bind_device_workspace(engine, workspace, DeviceWorkspace("shop-key", "desk", "/srv/shop",
                                                             "worktree"))  # fmt: skip
    with pytest.raises(UsageError, match="belongs to another project"):
        bind_device_workspace(
            engine, workspace, DeviceWorkspace("garden-key", "desk", "/srv/shop", "workspace")
        )
    with pytest.raises(UsageError, match="label"):
        bind_device_workspace(
            engine,
            workspace,
            DeviceWorkspace("shop-key", "desk", "/srv/x", "project"),  # type: ignore[arg-type]
        )
    kept = bind_device_workspace(engine, workspace, shop, keep_label=True)
    assert kept.label == "worktree"
    assert list_device_workspaces(engine, workspace) == [
        DeviceWorkspace("shop-key", "desk", "/srv/shop", "worktree")
    ]
