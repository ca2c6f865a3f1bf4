"""Run messages: a ``truncated`` flag for fields stored as their head and tail.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("local_run_messages") as batch:
        batch.add_column(
            sa.Column("truncated", sa.Boolean, nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("local_run_messages") as batch:
        batch.drop_column("truncated")
