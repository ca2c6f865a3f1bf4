"""Browser sessions kept server-side, so logging out (or expiry) ends them.

Revision ID: 0007_browser_sessions
Revises: 0006 (0006_discussions)
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
# After 0006_discussions.
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "browser_sessions",
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id_hash", name="pk_browser_sessions"),
    )
    op.create_index("ix_browser_sessions_expires_at", "browser_sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_browser_sessions_expires_at", "browser_sessions")
    op.drop_table("browser_sessions")
