"""Local runs: the run's current checklist, and sessions adopted into issues.

Revision ID: 0009_checklists_adoptions
Revises: 0008 (0008_devices_notifications)
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
# After 0008_devices_notifications.
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("local_runs") as batch:
        batch.add_column(sa.Column("checklist", sa.JSON, nullable=True))
    op.create_table(
        "local_run_adoptions",
        sa.Column("run_id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("device_id", sa.String(200), nullable=False),
        sa.Column("local_task_id", sa.String(200), nullable=False),
        sa.Column("runtime", sa.String(100), nullable=False),
        sa.Column("next_index", sa.Integer, nullable=False, server_default="0"),
        sa.Column("adopted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("run_id", name="pk_local_run_adoptions"),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["local_runs.id"],
            name="fk_local_run_adoptions_run_id_local_runs",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_local_run_adoptions_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint(
            "workspace_id", "device_id", "local_task_id", name="uq_local_run_adoptions_task"
        ),
    )


def downgrade() -> None:
    op.drop_table("local_run_adoptions")
    with op.batch_alter_table("local_runs") as batch:
        batch.drop_column("checklist")
