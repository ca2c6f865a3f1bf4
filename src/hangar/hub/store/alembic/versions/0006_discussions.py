"""Discussions: the talk before an issue, its saved questions, answers and plans.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _fk(table: str, column: str, target: str, ondelete: str) -> sa.ForeignKeyConstraint:
    ref_table = target.split(".")[0]
    return sa.ForeignKeyConstraint(
        [column], [target], name=f"fk_{table}_{column}_{ref_table}", ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "discussions",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("owner_id", sa.String(36), nullable=True),
        sa.Column("cli_name", sa.String(100), nullable=False),
        sa.Column("provider", sa.String(100), nullable=False),
        sa.Column("provider_session_id", sa.String(300), nullable=True),
        sa.Column("title", sa.String(500), nullable=False, server_default=""),
        sa.Column("status", sa.String(20), nullable=False, server_default="open"),
        sa.Column("work_dir", sa.Text, nullable=False, server_default=""),
        sa.Column("issue_id", sa.String(36), nullable=True),
        sa.Column("run_id", sa.String(36), nullable=True),
        sa.Column("execution_mode", sa.String(30), nullable=True),
        sa.Column("holder", sa.String(100), nullable=True),
        sa.Column("held_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_discussions"),
        _fk("discussions", "workspace_id", "workspaces.id", "CASCADE"),
        _fk("discussions", "owner_id", "members.id", "SET NULL"),
        _fk("discussions", "issue_id", "issues.id", "SET NULL"),
        _fk("discussions", "run_id", "local_runs.id", "SET NULL"),
        sa.UniqueConstraint("issue_id", name="uq_discussions_issue_id"),
    )
    op.create_index(
        "ix_discussions_provider_session",
        "discussions",
        ["workspace_id", "provider", "provider_session_id"],
    )
    op.create_table(
        "discussion_turns",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("discussion_id", sa.String(36), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("source", sa.String(100), nullable=False),
        sa.Column("source_key", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_discussion_turns"),
        _fk("discussion_turns", "discussion_id", "discussions.id", "CASCADE"),
        sa.UniqueConstraint("discussion_id", "seq", name="uq_discussion_turns_discussion_seq"),
        sa.UniqueConstraint(
            "discussion_id",
            "source",
            "source_key",
            name="uq_discussion_turns_discussion_source_key",
        ),
    )


def downgrade() -> None:
    op.drop_table("discussion_turns")
    op.drop_index("ix_discussions_provider_session", "discussions")
    op.drop_table("discussions")
