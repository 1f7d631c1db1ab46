package catalog

import (
	"context"
	"database/sql"
	"errors"
)

// PrivacySettings are an organization's privacy settings.
type PrivacySettings struct {
	OrgID string `json:"orgId"`
	// RedactPII replaces personal data in transcripts with its kind
	// ("[card]") before they are stored: the lake and the transcripts API
	// never hold it.
	RedactPII bool `json:"redactPii"`
	// KeepOriginals keeps uploads' staged originals once they are
	// processed; otherwise, with RedactPII, they are deleted then (they
	// hold what the transcripts no longer do).
	KeepOriginals bool `json:"keepOriginals"`
}

// PrivacySettings returns an organization's privacy settings (nothing
// redacted when none were set).
func (c *SettingStore) PrivacySettings(ctx context.Context, orgID string) (PrivacySettings, error) {
	s := PrivacySettings{OrgID: orgID}
	err := c.db.QueryRowContext(ctx, `SELECT redact_pii, keep_originals FROM org_privacy_settings WHERE org_id = ?`, orgID).Scan(&s.RedactPII, &s.KeepOriginals)
	if errors.Is(err, sql.ErrNoRows) {
		return s, nil
	}
	return s, err
}

// SetPrivacySettings replaces an organization's privacy settings.
func (c *SettingStore) SetPrivacySettings(ctx context.Context, s PrivacySettings) error {
	return c.setOrgSetting(ctx, s.OrgID, `INSERT INTO org_privacy_settings (org_id, redact_pii, keep_originals, modified_on) VALUES (?, ?, ?, ?)
		ON CONFLICT (org_id) DO UPDATE SET redact_pii = excluded.redact_pii, keep_originals = excluded.keep_originals,
			modified_on = excluded.modified_on`,
		s.OrgID, s.RedactPII, s.KeepOriginals, now())
}
