-- What the transcript engine learned about each task's file: its turn table (byte offset,
-- turn number, inherited state and first message index of each turn, with the file's
-- signature), so the first open after a restart reads only the last turns. Derived data:
-- a body that does not decode, was written by another hangar version or no longer fits
-- the file is ignored and replaced by the next full read.
CREATE TABLE transcript_turn_tables (
    local_task_id TEXT PRIMARY KEY,
    body          BLOB NOT NULL,
    saved_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
