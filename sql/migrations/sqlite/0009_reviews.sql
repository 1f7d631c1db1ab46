-- Human review and quality-control result sets (POST /ModelResults/Reviews):
-- a person's answers for some of a conversation's models. The newest set
-- of a conversation is its current one in /ModelResults; earlier sets, and
-- the machine's, are its priorResults.
CREATE TABLE result_reviews (
    id               VARCHAR PRIMARY KEY,    -- UUIDv7: id order is recording order
    org_id           VARCHAR NOT NULL,
    conversation_id  VARCHAR NOT NULL,
    event_type       VARCHAR NOT NULL,       -- HumanReview | QualityControl
    reviewer         VARCHAR NOT NULL,
    event_time       TIMESTAMP NOT NULL,
    model_results    VARCHAR NOT NULL        -- JSON [{modelId, result, textResult}]
);
CREATE INDEX result_reviews_conversation ON result_reviews (org_id, conversation_id);
