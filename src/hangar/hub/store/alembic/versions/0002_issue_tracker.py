"""The issue tracker: projects, labels, issues, issue labels, threaded comments.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _workspace_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["workspace_id"],
        ["workspaces.id"],
        name=f"fk_{table}_workspace_id_workspaces",
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_projects"),
        _workspace_fk("projects"),
        sa.UniqueConstraint("workspace_id", "name", name="uq_projects_workspace_name"),
    )
    op.create_table(
        "labels",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("color", sa.String(20), nullable=False, server_default="#888888"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_labels"),
        _workspace_fk("labels"),
        sa.UniqueConstraint("workspace_id", "name", name="uq_labels_workspace_name"),
    )
    op.create_table(
        "issues",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(36), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text, nullable=False, server_default=""),
        sa.Column("status", sa.String(20), nullable=False, server_default="backlog"),
        sa.Column("priority", sa.String(20), nullable=False, server_default="none"),
        sa.Column("project_id", sa.String(36), nullable=True),
        sa.Column("assignee_id", sa.String(36), nullable=True),
        sa.Column("parent_id", sa.String(36), nullable=True),
        sa.Column("start_date", sa.Date, nullable=True),
        sa.Column("due_date", sa.Date, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_issues"),
        _workspace_fk("issues"),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name="fk_issues_project_id_projects",
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["assignee_id"],
            ["members.id"],
            name="fk_issues_assignee_id_members",
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"], ["issues.id"], name="fk_issues_parent_id_issues", ondelete="SET NULL"
        ),
        sa.UniqueConstraint("workspace_id", "number", name="uq_issues_workspace_number"),
    )
    op.create_table(
        "issue_labels",
        sa.Column("issue_id", sa.String(36), nullable=False),
        sa.Column("label_id", sa.String(36), nullable=False),
        sa.PrimaryKeyConstraint("issue_id", "label_id", name="pk_issue_labels"),
        sa.ForeignKeyConstraint(
            ["issue_id"], ["issues.id"], name="fk_issue_labels_issue_id_issues", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["label_id"], ["labels.id"], name="fk_issue_labels_label_id_labels", ondelete="CASCADE"
        ),
    )
    op.create_table(
        "comments",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("issue_id", sa.String(36), nullable=False),
        sa.Column("parent_id", sa.String(36), nullable=True),
        sa.Column("author_id", sa.String(36), nullable=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_comments"),
        sa.ForeignKeyConstraint(
            ["issue_id"], ["issues.id"], name="fk_comments_issue_id_issues", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"],
            ["comments.id"],
            name="fk_comments_parent_id_comments",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["author_id"],
            ["members.id"],
            name="fk_comments_author_id_members",
            ondelete="SET NULL",
        ),
    )
    op.create_index("ix_comments_issue_id", "comments", ["issue_id"])


def downgrade() -> None:
    op.drop_index("ix_comments_issue_id", table_name="comments")
    op.drop_table("comments")
    op.drop_table("issue_labels")
    op.drop_table("issues")
    op.drop_table("labels")
    op.drop_table("projects")
