-- Search rows get ids by task: id = task_seq * 2^20 + (message index + 1), the title at
-- task_seq * 2^20. A query then learns which tasks match from the FTS doclist alone
-- (rowid >> 20) and finds a task's best message with a rowid range. The index is derived
-- data: it is emptied here and rebuilt on the next search.
ALTER TABLE search_progress ADD COLUMN task_seq INTEGER;
CREATE UNIQUE INDEX search_progress_seq ON search_progress (task_seq);
DELETE FROM search_fts;
DELETE FROM search_rows;
DELETE FROM search_progress;
