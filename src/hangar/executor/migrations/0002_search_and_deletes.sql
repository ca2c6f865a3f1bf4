-- Full-text search over task titles and transcript text, and the state of two-phase deletes.

-- One row per indexed unit: a task's title (message_index NULL, role 'title') or one message.
CREATE TABLE search_rows (
    id            INTEGER PRIMARY KEY,
    local_task_id TEXT NOT NULL,
    message_index INTEGER,
    role          TEXT NOT NULL,
    created_at    TEXT
);
CREATE INDEX search_rows_task ON search_rows (local_task_id, message_index);

-- rowid = search_rows.id. body: user text, assistant text, tool commands; output: tool output.
-- CJK runs are stored one character per token (see executor/search_text.py).
CREATE VIRTUAL TABLE search_fts USING fts5 (
    body, output, tokenize = 'unicode61 remove_diacritics 2'
);

-- How far each task's transcript has been indexed.
CREATE TABLE search_progress (
    local_task_id TEXT PRIMARY KEY,
    signature     TEXT NOT NULL,      -- the source's signature when last indexed
    byte_offset   INTEGER NOT NULL DEFAULT 0,
    messages      INTEGER NOT NULL DEFAULT 0,
    title         TEXT NOT NULL DEFAULT '',
    indexed_at    TEXT NOT NULL,
    error         TEXT
);

-- Phase two of a delete: one row per task, processed by one worker, one at a time.
CREATE TABLE delete_queue (
    local_task_id TEXT PRIMARY KEY,
    batch_id      TEXT NOT NULL,
    state         TEXT NOT NULL DEFAULT 'pending',   -- pending | running | done | failed
    attempts      INTEGER NOT NULL DEFAULT 0,
    trash_id      TEXT,
    method        TEXT,                              -- trash | codex-thread-delete | hidden
    error         TEXT,
    enqueued_at   TEXT NOT NULL,
    finished_at   TEXT
);
CREATE INDEX delete_queue_state ON delete_queue (state, enqueued_at);

-- RW-171: threads Codex cannot operate on ("no rollout found"), hidden for a while.
CREATE TABLE stale_thread_markers (
    runtime     TEXT NOT NULL,
    session_key TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (runtime, session_key)
);
