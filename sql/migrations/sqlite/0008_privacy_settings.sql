-- Per-organization privacy: whether personal data (card numbers, SSNs,
-- phone numbers, e-mail addresses) is redacted from transcripts before
-- they are stored in the lake.
CREATE TABLE org_privacy_settings (
    org_id       VARCHAR PRIMARY KEY,
    redact_pii   BOOLEAN NOT NULL,
    modified_on  TIMESTAMP NOT NULL
);
