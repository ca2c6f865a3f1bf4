-- Rich-text references (skill and plugin tags) of messages sent through this executor, by the
-- sender's clientUserMessageId, with the agent's turn id the send started. Only the tokens and
-- their targets are kept, never the message text: the agent's transcript stays the one body
-- (RW-231, RW-232).
CREATE TABLE user_message_presentations (
    local_task_id          TEXT NOT NULL,
    client_user_message_id TEXT NOT NULL,
    turn_id                TEXT,
    refs                   TEXT NOT NULL,
    created_at             TEXT NOT NULL,
    PRIMARY KEY (local_task_id, client_user_message_id)
);
