-- Result emission: an organization's HTTPS endpoint (with the secret its
-- deliveries are signed with, and how far the emit job has looked for new
-- result sets), and one delivery per result set (a conversation's machine
-- results of one run, or one review), retried until acknowledged. The
-- endpoint's acknowledgement is the receipt GET /Receipts lists.
CREATE TABLE emission_endpoints (
    org_id         VARCHAR PRIMARY KEY,
    url            VARCHAR NOT NULL,
    secret         VARCHAR NOT NULL,
    created_on     TIMESTAMP NOT NULL,
    scanned_until  TIMESTAMP NOT NULL
);

CREATE TABLE deliveries (
    id                   VARCHAR PRIMARY KEY,  -- UUIDv7; the idempotency key sent with every attempt
    org_id               VARCHAR NOT NULL,
    conversation_id      VARCHAR NOT NULL,
    result_key           VARCHAR NOT NULL,     -- ModelResults:<conversation>:<run> | Review:<review>
    event_type           VARCHAR NOT NULL,     -- ModelResults | HumanReview | QualityControl
    event_time           TIMESTAMP NOT NULL,
    status               VARCHAR NOT NULL,     -- Pending | Delivered | Failed
    attempts             INTEGER NOT NULL,
    next_attempt_on      TIMESTAMP NOT NULL,
    lease_owner          VARCHAR,
    lease_until          TIMESTAMP,
    last_error           VARCHAR,
    transmitted_on       TIMESTAMP,
    customer_receipt_id  VARCHAR,
    uid                  VARCHAR,
    created_on           TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX deliveries_result ON deliveries (org_id, result_key);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_on);
CREATE INDEX deliveries_conversation ON deliveries (org_id, conversation_id);

-- The emit job finds conversations processed since it last looked.
CREATE INDEX interactions_org_modified ON interactions (org_id, modified_on);
