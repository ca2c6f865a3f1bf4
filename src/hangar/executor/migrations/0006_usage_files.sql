-- What each session file yielded to the usage count (its model calls, their keys, their sums by
-- day and model) with the file's stat signature, so a new process counts only changed files.
-- Derived data: a body that does not decode or whose signature no longer matches the file is
-- ignored and replaced by the next read.
CREATE TABLE usage_files (
    cache_key TEXT PRIMARY KEY,
    body      BLOB NOT NULL
);
