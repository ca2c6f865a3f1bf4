"""Issues: who opened each one (``author_id``, a member), shown by the member's name.

Revision ID: 0011_issue_authors
Revises: 0009 (0009_checklists_adoptions)
Create Date: 2026-12-02

Existing issues were all opened through the hub's one identity, the workspace owner (the only
member a hub authenticates), so they are attributed to their workspace's owner member.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
# After 0009_checklists_adoptions (the merger re-chains after a sibling 0010).
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("issues") as batch:
        batch.add_column(sa.Column("author_id", sa.String(36), nullable=True))
        batch.create_foreign_key(
            "fk_issues_author_id_members", "members", ["author_id"], ["id"], ondelete="SET NULL"
        )
    op.execute(
        "UPDATE issues SET author_id = (SELECT m.id FROM members m"
        " WHERE m.workspace_id = issues.workspace_id AND m.role = 'owner'"
        " ORDER BY m.created_at LIMIT 1) WHERE author_id IS NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table("issues") as batch:
        batch.drop_constraint("fk_issues_author_id_members", type_="foreignkey")
        batch.drop_column("author_id")
