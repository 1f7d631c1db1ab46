-- Interactions (CONTRACT §4): one row per upload and, for chat archives, one
-- per chat found in it. The unique (org_id, file_name) is what makes "an
-- interaction with this file name already exists" hold under concurrent
-- uploads: the insert that claims the name is the record itself.
CREATE TABLE interactions (
    id                    VARCHAR PRIMARY KEY,         -- UUIDv7: id order is arrival order
    org_id                VARCHAR NOT NULL,
    upload_id             VARCHAR,                     -- a ProcessedChat's archive
    media_type            VARCHAR NOT NULL,            -- Audio | Chat | ProcessedChat
    status                VARCHAR NOT NULL,            -- Processing | ReadyToSample | Sampled | FailedToProcess
    file_name             VARCHAR NOT NULL,            -- FileName (or FilePath) as given
    orig_file_name        VARCHAR,                     -- the uploaded part's own file name
    staged_key            VARCHAR,                     -- object key of the staged upload
    file_size_bytes       BIGINT NOT NULL DEFAULT 0,
    sha256                VARCHAR,
    arrived_on            TIMESTAMP NOT NULL,
    interaction_date      TIMESTAMP,                   -- InteractionDate / TimeStamp
    hierarchy_node_id     VARCHAR,                     -- organizationStructureMemberId
    agent_id              VARCHAR,
    agent_code            VARCHAR,
    agent_first_name      VARCHAR,
    agent_last_name       VARCHAR,
    customer_name         VARCHAR,
    phone                 VARCHAR,
    email                 VARCHAR,
    call_direction        VARCHAR,
    client_call_id        VARCHAR,
    locale_id             INTEGER NOT NULL,
    extended_metadata     VARCHAR NOT NULL,            -- JSON object of string values
    call_duration_millis  BIGINT,
    chat_message_count    INTEGER,
    source                VARCHAR NOT NULL,            -- file | signedUrl | text
    modified_on           TIMESTAMP NOT NULL,
    UNIQUE (org_id, file_name)
);
CREATE INDEX interactions_org_arrived ON interactions (org_id, arrived_on);
CREATE INDEX interactions_upload ON interactions (upload_id);
-- The ingest queue: pending uploads in id order, without the processed.
CREATE INDEX interactions_pending ON interactions (id) WHERE status = 'Processing';

CREATE TABLE process_failures (
    id              VARCHAR PRIMARY KEY,
    org_id          VARCHAR NOT NULL,
    interaction_id  VARCHAR NOT NULL,
    message         VARCHAR NOT NULL,
    created_on      TIMESTAMP NOT NULL
);
CREATE INDEX process_failures_interaction ON process_failures (interaction_id);
