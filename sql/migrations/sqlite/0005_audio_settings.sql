-- Per-organization speech settings: which stereo channel is the agent's
-- (the other is the customer's), and an optional language model and
-- dictionary of the organization's own (paths on the workers).
CREATE TABLE org_audio_settings (
    org_id          VARCHAR PRIMARY KEY,
    agent_channel   INTEGER NOT NULL DEFAULT 0,
    language_model  VARCHAR,
    dictionary      VARCHAR,
    modified_on     TIMESTAMP NOT NULL
);
