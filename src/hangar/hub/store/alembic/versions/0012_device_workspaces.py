"""Device Workspaces: a device's directory bound to a Project, labelled worktree|workspace.

Revision ID: 0012_device_workspaces
Revises: 0011 (0011_issue_authors)
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "device_workspaces",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("project_key", sa.String(64), nullable=False),
        sa.Column("device_id", sa.String(200), nullable=False),
        sa.Column("workspace_path", sa.String(4096), nullable=False),
        sa.Column("label", sa.String(20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_device_workspaces"),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_device_workspaces_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint(
            "workspace_id", "device_id", "workspace_path", name="uq_device_workspaces_directory"
        ),
    )
    op.create_index(
        "ix_device_workspaces_project", "device_workspaces", ["workspace_id", "project_key"]
    )


def downgrade() -> None:
    op.drop_index("ix_device_workspaces_project", table_name="device_workspaces")
    op.drop_table("device_workspaces")
