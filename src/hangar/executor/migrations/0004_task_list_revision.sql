-- A counter that moves with every change to local_tasks, in the same transaction as the
-- change: the list of tasks is the same as long as it is. Readers (the list cache of an
-- executor, a hub asking "changed since N?") compare one integer instead of the rows, and a
-- change made by another process on this executor.db (a `hangar tasks archive` while
-- `hangar serve` runs) moves it too.
CREATE TABLE task_list_revision (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER NOT NULL
);
INSERT INTO task_list_revision (id, revision) VALUES (1, 0);

CREATE TRIGGER local_tasks_revision_insert AFTER INSERT ON local_tasks
BEGIN
    UPDATE task_list_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER local_tasks_revision_update AFTER UPDATE ON local_tasks
BEGIN
    UPDATE task_list_revision SET revision = revision + 1 WHERE id = 1;
END;

CREATE TRIGGER local_tasks_revision_delete AFTER DELETE ON local_tasks
BEGIN
    UPDATE task_list_revision SET revision = revision + 1 WHERE id = 1;
END;
