"""Hub tables as SQLAlchemy Core metadata (portable: SQLite and PostgreSQL).

The Alembic migrations in ``hub/alembic/versions`` create these tables; a test checks that
the migrated database matches this metadata, so the two never drift.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

workspaces = sa.Table(
    "workspaces",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("key_prefix", sa.String(10), nullable=False, unique=True),
    sa.Column("next_issue_number", sa.Integer, nullable=False, server_default="1"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

members = sa.Table(
    "members",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("email", sa.String(320), nullable=True),
    sa.Column("role", sa.String(20), nullable=False, server_default="owner"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

projects = sa.Table(
    "projects",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("description", sa.Text, nullable=False, server_default=""),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("workspace_id", "name", name="uq_projects_workspace_name"),
)

labels = sa.Table(
    "labels",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("color", sa.String(20), nullable=False, server_default="#888888"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("workspace_id", "name", name="uq_labels_workspace_name"),
)

issues = sa.Table(
    "issues",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("title", sa.String(500), nullable=False),
    sa.Column("description", sa.Text, nullable=False, server_default=""),
    sa.Column("status", sa.String(20), nullable=False, server_default="backlog"),
    sa.Column("priority", sa.String(20), nullable=False, server_default="none"),
    sa.Column(
        "project_id",
        sa.String(36),
        sa.ForeignKey("projects.id", ondelete="SET NULL"),
        nullable=True,
    ),
    sa.Column(
        "assignee_id",
        sa.String(36),
        sa.ForeignKey("members.id", ondelete="SET NULL"),
        nullable=True,
    ),
    sa.Column(
        "parent_id", sa.String(36), sa.ForeignKey("issues.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("start_date", sa.Date, nullable=True),
    sa.Column("due_date", sa.Date, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("workspace_id", "number", name="uq_issues_workspace_number"),
)

issue_labels = sa.Table(
    "issue_labels",
    metadata,
    sa.Column(
        "issue_id",
        sa.String(36),
        sa.ForeignKey("issues.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column(
        "label_id",
        sa.String(36),
        sa.ForeignKey("labels.id", ondelete="CASCADE"),
        primary_key=True,
    ),
)

comments = sa.Table(
    "comments",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "issue_id", sa.String(36), sa.ForeignKey("issues.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column(
        "parent_id", sa.String(36), sa.ForeignKey("comments.id", ondelete="CASCADE"), nullable=True
    ),
    sa.Column(
        "author_id", sa.String(36), sa.ForeignKey("members.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_comments_issue_id", "issue_id"),
)
