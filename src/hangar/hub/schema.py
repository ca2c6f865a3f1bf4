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
