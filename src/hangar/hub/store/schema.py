"""Hub tables as SQLAlchemy Core metadata (portable: SQLite and PostgreSQL).

The Alembic migrations in ``hub/store/alembic/versions`` create these tables; a test checks that
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
    # Who opened the issue (migration 0011); shown by the member's name.
    sa.Column(
        "author_id", sa.String(36), sa.ForeignKey("members.id", ondelete="SET NULL"), nullable=True
    ),
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

# --- local runs (`hangar run ISSUE -- CLI …`) ---------------------------------------------

local_runs = sa.Table(
    "local_runs",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column(
        "issue_id", sa.String(36), sa.ForeignKey("issues.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column(
        "owner_id", sa.String(36), sa.ForeignKey("members.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("cli_name", sa.String(100), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("exit_code", sa.Integer, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("work_dir", sa.Text, nullable=False, server_default=""),
    sa.Column("context_dir", sa.Text, nullable=True),
    sa.Column("comments_mode", sa.String(20), nullable=False, server_default="thread"),
    sa.Column("no_status_update", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column(
        "top_comment_id",
        sa.String(36),
        sa.ForeignKey("comments.id", ondelete="SET NULL"),
        nullable=True,
    ),
    sa.Column("source", sa.String(100), nullable=False),
    sa.Column("source_key", sa.String(300), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("active_ms", sa.BigInteger, nullable=True),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
    # The run's current checklist, projected from its messages (hub/store/run_checklists.py).
    sa.Column("checklist", sa.JSON, nullable=True),
    sa.UniqueConstraint(
        "workspace_id", "source", "source_key", name="uq_local_runs_workspace_source_key"
    ),
    sa.Index("ix_local_runs_issue_id", "issue_id"),
    sa.Index("ix_local_runs_status", "status"),
    sa.Index("ix_local_runs_token_hash", "token_hash"),
)

local_run_messages = sa.Table(
    "local_run_messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "run_id", sa.String(36), sa.ForeignKey("local_runs.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("type", sa.String(20), nullable=False),
    sa.Column("tool", sa.String(200), nullable=True),
    sa.Column("content", sa.Text, nullable=False, server_default=""),
    sa.Column("input", sa.JSON, nullable=True),
    sa.Column("output", sa.Text, nullable=True),
    sa.Column("source", sa.String(100), nullable=False),
    sa.Column("source_key", sa.String(500), nullable=False),
    sa.Column("truncated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column(
        "comment_id",
        sa.String(36),
        sa.ForeignKey("comments.id", ondelete="SET NULL"),
        nullable=True,
    ),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("run_id", "seq", name="uq_local_run_messages_run_seq"),
    sa.UniqueConstraint(
        "run_id", "source", "source_key", name="uq_local_run_messages_run_source_key"
    ),
)

local_run_usage = sa.Table(
    "local_run_usage",
    metadata,
    sa.Column(
        "run_id",
        sa.String(36),
        sa.ForeignKey("local_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("provider", sa.String(100), primary_key=True),
    sa.Column("model", sa.String(200), primary_key=True),
    sa.Column("input_tokens", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("output_tokens", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("cache_read_tokens", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("cache_write_tokens", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

local_run_outbox = sa.Table(
    "local_run_outbox",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "message_id",
        sa.Integer,
        sa.ForeignKey("local_run_messages.id", ondelete="CASCADE"),
        nullable=False,
        unique=True,
    ),
    sa.Column(
        "run_id", sa.String(36), sa.ForeignKey("local_runs.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("status", sa.String(20), nullable=False, server_default="pending"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("last_error", sa.Text, nullable=True),
    sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_local_run_outbox_status_next", "status", "next_attempt_at"),
)

# --- browser sessions of the web UI ----------------------------------------------------------

browser_sessions = sa.Table(
    "browser_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_browser_sessions_expires_at", "expires_at"),
)

local_run_adoptions = sa.Table(
    # A session started outside hangar, adopted into an issue as a local run (hub/adoption.py).
    "local_run_adoptions",
    metadata,
    sa.Column(
        "run_id",
        sa.String(36),
        sa.ForeignKey("local_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("device_id", sa.String(200), nullable=False),
    sa.Column("local_task_id", sa.String(200), nullable=False),
    sa.Column("runtime", sa.String(100), nullable=False),
    sa.Column("next_index", sa.Integer, nullable=False, server_default="0"),
    sa.Column("adopted_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("synced_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("last_error", sa.Text, nullable=True),
    sa.UniqueConstraint(
        "workspace_id", "device_id", "local_task_id", name="uq_local_run_adoptions_task"
    ),
)


# --- attachments uploaded for a continued task (RW-153..156) -------------------------------

attachments = sa.Table(
    "attachments",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column(
        "owner_id", sa.String(36), sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("mime_type", sa.String(100), nullable=False),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("state", sa.String(20), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_attachments_owner_id", "owner_id"),
)

# -- devices of a team hub (remote executors) and the replicas serving them ----------------
devices = sa.Table(
    "devices",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("device_id", sa.String(200), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("state", sa.String(10), nullable=False, server_default="offline"),
    sa.Column("replica_id", sa.String(36), nullable=True),
    sa.Column("connection_id", sa.String(36), nullable=True),
    sa.Column("connected_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("client_ip", sa.String(64), nullable=True),
    sa.Column("transfer_host", sa.String(255), nullable=True),
    sa.Column("device_name", sa.String(200), nullable=True),
    sa.Column("executor_version", sa.String(50), nullable=True),
    sa.Index("ix_devices_device_id", "device_id"),
)

hub_replicas = sa.Table(
    "hub_replicas",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("host", sa.String(255), nullable=False, server_default=""),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
)

device_calls = sa.Table(
    "device_calls",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("device_id", sa.String(200), nullable=False),
    sa.Column("holder", sa.String(36), nullable=False),
    sa.Column("caller", sa.String(36), nullable=False),
    sa.Column("method", sa.String(200), nullable=False),
    sa.Column("request", sa.LargeBinary, nullable=False),
    sa.Column("state", sa.String(10), nullable=False, server_default="pending"),
    sa.Column("response", sa.LargeBinary, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_device_calls_deadline_at", "deadline_at"),
)

# -- notifications ----------------------------------------------------------------------------
notification_settings = sa.Table(
    "notification_settings",
    metadata,
    sa.Column(
        "member_id",
        sa.String(36),
        sa.ForeignKey("members.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

notification_targets = sa.Table(
    "notification_targets",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "member_id",
        sa.String(36),
        sa.ForeignKey("members.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("scope", sa.String(10), nullable=False, server_default="global"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("member_id", "name", name="uq_notification_targets_member_name"),
)

notification_subscriptions = sa.Table(
    "notification_subscriptions",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "target_id",
        sa.String(36),
        sa.ForeignKey("notification_targets.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("device_id", sa.String(200), nullable=False),
    sa.Column("local_task_id", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint(
        "target_id", "device_id", "local_task_id", name="uq_notification_subscriptions_task"
    ),
)

notification_deliveries = sa.Table(
    "notification_deliveries",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "target_id",
        sa.String(36),
        sa.ForeignKey("notification_targets.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("device_id", sa.String(200), nullable=False),
    sa.Column("local_task_id", sa.String(200), nullable=False),
    sa.Column("update_key", sa.String(200), nullable=False),
    sa.Column("title", sa.Text, nullable=False, server_default=""),
    sa.Column("body", sa.Text, nullable=False, server_default=""),
    sa.Column("status", sa.String(10), nullable=False, server_default="pending"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
    sa.Column("last_error", sa.Text, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
    sa.UniqueConstraint(
        "target_id",
        "device_id",
        "local_task_id",
        "update_key",
        name="uq_notification_deliveries_update",
    ),
    sa.Index("ix_notification_deliveries_status_next", "status", "next_attempt_at"),
)

# --- discussions (`hangar discuss -- CLI …`: the talk before the issue) -------------------

discussions = sa.Table(
    "discussions",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column(
        "owner_id", sa.String(36), sa.ForeignKey("members.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("cli_name", sa.String(100), nullable=False),
    sa.Column("provider", sa.String(100), nullable=False),
    sa.Column("provider_session_id", sa.String(300), nullable=True),
    sa.Column("title", sa.String(500), nullable=False, server_default=""),
    sa.Column("status", sa.String(20), nullable=False, server_default="open"),
    sa.Column("work_dir", sa.Text, nullable=False, server_default=""),
    sa.Column(
        "issue_id",
        sa.String(36),
        sa.ForeignKey("issues.id", ondelete="SET NULL"),
        nullable=True,
        unique=True,
    ),
    sa.Column(
        "run_id", sa.String(36), sa.ForeignKey("local_runs.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("execution_mode", sa.String(30), nullable=True),
    sa.Column("holder", sa.String(100), nullable=True),
    sa.Column("held_until", sa.DateTime(timezone=True), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_discussions_provider_session", "workspace_id", "provider", "provider_session_id"),
)

discussion_turns = sa.Table(
    "discussion_turns",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "discussion_id",
        sa.String(36),
        sa.ForeignKey("discussions.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("source", sa.String(100), nullable=False),
    sa.Column("source_key", sa.String(500), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("discussion_id", "seq", name="uq_discussion_turns_discussion_seq"),
    sa.UniqueConstraint(
        "discussion_id", "source", "source_key", name="uq_discussion_turns_discussion_source_key"
    ),
)

device_workspaces = sa.Table(
    # A device's directory bound to a Project (RW-301..305): ``project_key`` is the Project's
    # ``projectId`` where it was first bound from (``deviceId`` + its folder); ``label`` is
    # ``workspace`` or ``worktree`` (preferred as the list's workspaceKind, RW-304).
    "device_workspaces",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "workspace_id",
        sa.String(36),
        sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("project_key", sa.String(64), nullable=False),
    sa.Column("device_id", sa.String(200), nullable=False),
    sa.Column("workspace_path", sa.String(4096), nullable=False),
    sa.Column("label", sa.String(20), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint(
        "workspace_id", "device_id", "workspace_path", name="uq_device_workspaces_directory"
    ),
    sa.Index("ix_device_workspaces_project", "workspace_id", "project_key"),
)
