-- Tool calls are indexed by their arguments only: a tool's name ("Bash", "exec_command") in
-- every command row made snippets noisy and matched every call of that tool. The index is
-- derived data: it is emptied here and rebuilt on the next search.
DELETE FROM search_fts;
DELETE FROM search_rows;
DELETE FROM search_progress;
