"""Devices of a team hub, the replicas serving them, calls routed between replicas, and
runtime-task notifications.

Revision ID: 0008_devices_notifications
Revises: 0007 (0007_browser_sessions)
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"  # 0007_browser_sessions
branch_labels = None
depends_on = None


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    ref_table = target.split(".")[0]
    return sa.ForeignKeyConstraint(
        [column], [target], name=f"fk_{table}_{column}_{ref_table}", ondelete="CASCADE"
    )


def _stamp(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "devices",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("device_id", sa.String(200), nullable=True),
        _stamp("created_at"),
        _stamp("revoked_at", True),
        sa.Column("state", sa.String(10), nullable=False, server_default="offline"),
        sa.Column("replica_id", sa.String(36), nullable=True),
        sa.Column("connection_id", sa.String(36), nullable=True),
        _stamp("connected_at", True),
        _stamp("last_seen_at", True),
        sa.Column("client_ip", sa.String(64), nullable=True),
        sa.Column("transfer_host", sa.String(255), nullable=True),
        sa.Column("device_name", sa.String(200), nullable=True),
        sa.Column("executor_version", sa.String(50), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_devices"),
        _fk("devices", "workspace_id", "workspaces.id"),
        sa.UniqueConstraint("token_hash", name="uq_devices_token_hash"),
    )
    op.create_index("ix_devices_device_id", "devices", ["device_id"])
    op.create_table(
        "hub_replicas",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("host", sa.String(255), nullable=False, server_default=""),
        _stamp("started_at"),
        _stamp("heartbeat_at"),
        sa.PrimaryKeyConstraint("id", name="pk_hub_replicas"),
    )
    op.create_table(
        "device_calls",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("device_id", sa.String(200), nullable=False),
        sa.Column("holder", sa.String(36), nullable=False),
        sa.Column("caller", sa.String(36), nullable=False),
        sa.Column("method", sa.String(200), nullable=False),
        sa.Column("request", sa.LargeBinary, nullable=False),
        sa.Column("state", sa.String(10), nullable=False, server_default="pending"),
        sa.Column("response", sa.LargeBinary, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        _stamp("created_at"),
        _stamp("deadline_at"),
        sa.PrimaryKeyConstraint("id", name="pk_device_calls"),
    )
    op.create_index("ix_device_calls_deadline_at", "device_calls", ["deadline_at"])
    op.create_table(
        "notification_settings",
        sa.Column("member_id", sa.String(36), nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.false()),
        _stamp("updated_at"),
        sa.PrimaryKeyConstraint("member_id", name="pk_notification_settings"),
        _fk("notification_settings", "member_id", "members.id"),
    )
    op.create_table(
        "notification_targets",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("member_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("scope", sa.String(10), nullable=False, server_default="global"),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_notification_targets"),
        _fk("notification_targets", "member_id", "members.id"),
        sa.UniqueConstraint("member_id", "name", name="uq_notification_targets_member_name"),
    )
    op.create_table(
        "notification_subscriptions",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("target_id", sa.String(36), nullable=False),
        sa.Column("device_id", sa.String(200), nullable=False),
        sa.Column("local_task_id", sa.String(200), nullable=False),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_notification_subscriptions"),
        _fk("notification_subscriptions", "target_id", "notification_targets.id"),
        sa.UniqueConstraint(
            "target_id", "device_id", "local_task_id", name="uq_notification_subscriptions_task"
        ),
    )
    op.create_table(
        "notification_deliveries",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("target_id", sa.String(36), nullable=False),
        sa.Column("device_id", sa.String(200), nullable=False),
        sa.Column("local_task_id", sa.String(200), nullable=False),
        sa.Column("update_key", sa.String(200), nullable=False),
        sa.Column("title", sa.Text, nullable=False, server_default=""),
        sa.Column("body", sa.Text, nullable=False, server_default=""),
        sa.Column("status", sa.String(10), nullable=False, server_default="pending"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        _stamp("next_attempt_at"),
        _stamp("claimed_until", True),
        sa.Column("last_error", sa.Text, nullable=True),
        _stamp("created_at"),
        _stamp("sent_at", True),
        sa.PrimaryKeyConstraint("id", name="pk_notification_deliveries"),
        _fk("notification_deliveries", "target_id", "notification_targets.id"),
        sa.UniqueConstraint(
            "target_id",
            "device_id",
            "local_task_id",
            "update_key",
            name="uq_notification_deliveries_update",
        ),
    )
    op.create_index(
        "ix_notification_deliveries_status_next",
        "notification_deliveries",
        ["status", "next_attempt_at"],
    )


def downgrade() -> None:
    op.drop_table("notification_deliveries")
    op.drop_table("notification_subscriptions")
    op.drop_table("notification_targets")
    op.drop_table("notification_settings")
    op.drop_index("ix_device_calls_deadline_at", "device_calls")
    op.drop_table("device_calls")
    op.drop_table("hub_replicas")
    op.drop_index("ix_devices_device_id", "devices")
    op.drop_table("devices")
