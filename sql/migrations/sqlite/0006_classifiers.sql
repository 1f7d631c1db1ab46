-- Classifiers: an organization's questions of every conversation. The
-- current version is in classifiers; every version ever written is in
-- classifier_versions, so a result can always be traced to the definition
-- that produced it. A deleted classifier keeps its rows (deleted_on set):
-- its results stay explainable.
CREATE TABLE classifiers (
    id               VARCHAR PRIMARY KEY,
    org_id           VARCHAR NOT NULL,
    name             VARCHAR NOT NULL,
    description      VARCHAR NOT NULL DEFAULT '',
    classifier_type  VARCHAR NOT NULL,
    category_name    VARCHAR NOT NULL,
    reportable       BOOLEAN NOT NULL,
    groupable        BOOLEAN NOT NULL,
    is_active        BOOLEAN NOT NULL,
    version          INTEGER NOT NULL,
    definition       VARCHAR NOT NULL,
    created_on       TIMESTAMP NOT NULL,
    modified_on      TIMESTAMP NOT NULL,
    deleted_on       TIMESTAMP
);
CREATE INDEX classifiers_org ON classifiers (org_id);

CREATE TABLE classifier_versions (
    classifier_id    VARCHAR NOT NULL,
    version          INTEGER NOT NULL,
    org_id           VARCHAR NOT NULL,
    name             VARCHAR NOT NULL,
    classifier_type  VARCHAR NOT NULL,
    category_name    VARCHAR NOT NULL,
    definition       VARCHAR NOT NULL,
    created_on       TIMESTAMP NOT NULL,
    PRIMARY KEY (classifier_id, version)
);
