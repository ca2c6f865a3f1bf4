-- The device-side LocalTask index: hangar's stable identity for every agent session found on
-- this device, with the metadata needed to list it without reading the transcript again.
CREATE TABLE local_tasks (
    local_task_id        TEXT PRIMARY KEY,    -- hangar's id: random, assigned once
    runtime              TEXT NOT NULL,
    session_key          TEXT NOT NULL,       -- the agent's own id for the session
    runtime_handle       TEXT NOT NULL,       -- JSON object, opaque to everything but the agent
    source_path          TEXT,                -- the file (or database) the session lives in
    stat_signature       TEXT,                -- device:inode:size:mtime_ns when last described
    parent_session_key   TEXT,                -- set for sub-agent sessions (never listed)
    title                TEXT NOT NULL DEFAULT '',
    title_override       TEXT,                -- a name kept outside the transcript, or a rename
    workspace_path       TEXT NOT NULL DEFAULT '',
    group_workspace_path TEXT NOT NULL DEFAULT '',
    workspace_kind       TEXT NOT NULL DEFAULT 'workspace',
    worktree_id          TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL,
    archived             INTEGER NOT NULL DEFAULT 0,
    archived_override    INTEGER,
    status               TEXT NOT NULL DEFAULT 'done',
    message_count        INTEGER NOT NULL DEFAULT 0,
    model                TEXT,
    signature            TEXT,                -- stat_signature when last read in full
    missing              INTEGER NOT NULL DEFAULT 0,
    deleted_at           TEXT,                -- tombstone: hidden at once, deleted later
    UNIQUE (runtime, session_key)
);

CREATE INDEX local_tasks_updated ON local_tasks (updated_at DESC);
CREATE INDEX local_tasks_group ON local_tasks (group_workspace_path);
CREATE INDEX local_tasks_path ON local_tasks (source_path);
