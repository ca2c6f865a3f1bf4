"""Local runs: runs bound to issues, their messages, usage and the comment outbox.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _fk(table: str, column: str, target: str, ondelete: str) -> sa.ForeignKeyConstraint:
    ref_table = target.split(".")[0]
    return sa.ForeignKeyConstraint(
        [column], [target], name=f"fk_{table}_{column}_{ref_table}", ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "local_runs",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("issue_id", sa.String(36), nullable=False),
        sa.Column("owner_id", sa.String(36), nullable=True),
        sa.Column("cli_name", sa.String(100), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("exit_code", sa.Integer, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("work_dir", sa.Text, nullable=False, server_default=""),
        sa.Column("context_dir", sa.Text, nullable=True),
        sa.Column("comments_mode", sa.String(20), nullable=False, server_default="thread"),
        sa.Column("no_status_update", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("top_comment_id", sa.String(36), nullable=True),
        sa.Column("source", sa.String(100), nullable=False),
        sa.Column("source_key", sa.String(300), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("active_ms", sa.BigInteger, nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_local_runs"),
        _fk("local_runs", "workspace_id", "workspaces.id", "CASCADE"),
        _fk("local_runs", "issue_id", "issues.id", "CASCADE"),
        _fk("local_runs", "owner_id", "members.id", "SET NULL"),
        _fk("local_runs", "top_comment_id", "comments.id", "SET NULL"),
        sa.UniqueConstraint(
            "workspace_id", "source", "source_key", name="uq_local_runs_workspace_source_key"
        ),
    )
    op.create_index("ix_local_runs_issue_id", "local_runs", ["issue_id"])
    op.create_index("ix_local_runs_status", "local_runs", ["status"])
    op.create_index("ix_local_runs_token_hash", "local_runs", ["token_hash"])
    op.create_table(
        "local_run_messages",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("run_id", sa.String(36), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("type", sa.String(20), nullable=False),
        sa.Column("tool", sa.String(200), nullable=True),
        sa.Column("content", sa.Text, nullable=False, server_default=""),
        sa.Column("input", sa.JSON, nullable=True),
        sa.Column("output", sa.Text, nullable=True),
        sa.Column("source", sa.String(100), nullable=False),
        sa.Column("source_key", sa.String(500), nullable=False),
        sa.Column("comment_id", sa.String(36), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_local_run_messages"),
        _fk("local_run_messages", "run_id", "local_runs.id", "CASCADE"),
        _fk("local_run_messages", "comment_id", "comments.id", "SET NULL"),
        sa.UniqueConstraint("run_id", "seq", name="uq_local_run_messages_run_seq"),
        sa.UniqueConstraint(
            "run_id", "source", "source_key", name="uq_local_run_messages_run_source_key"
        ),
    )
    op.create_table(
        "local_run_usage",
        sa.Column("run_id", sa.String(36), nullable=False),
        sa.Column("provider", sa.String(100), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("input_tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("output_tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("cache_read_tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("cache_write_tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("run_id", "provider", "model", name="pk_local_run_usage"),
        _fk("local_run_usage", "run_id", "local_runs.id", "CASCADE"),
    )
    op.create_table(
        "local_run_outbox",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("message_id", sa.Integer, nullable=False),
        sa.Column("run_id", sa.String(36), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="pending"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_local_run_outbox"),
        _fk("local_run_outbox", "message_id", "local_run_messages.id", "CASCADE"),
        _fk("local_run_outbox", "run_id", "local_runs.id", "CASCADE"),
        sa.UniqueConstraint("message_id", name="uq_local_run_outbox_message_id"),
    )
    op.create_index(
        "ix_local_run_outbox_status_next", "local_run_outbox", ["status", "next_attempt_at"]
    )


def downgrade() -> None:
    op.drop_table("local_run_outbox")
    op.drop_table("local_run_usage")
    op.drop_table("local_run_messages")
    op.drop_index("ix_local_runs_token_hash", "local_runs")
    op.drop_index("ix_local_runs_status", "local_runs")
    op.drop_index("ix_local_runs_issue_id", "local_runs")
    op.drop_table("local_runs")
