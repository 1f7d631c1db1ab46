package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SettingStore keeps each organization's audio and privacy settings.
type SettingStore struct{ handle }

// PrivacySettings are an organization's privacy settings.
type PrivacySettings struct {
	OrgID string `json:"orgId"`
	// RedactPII replaces personal data in transcripts with its kind
	// ("[card]") before they are stored: the lake and the transcripts API
	// never hold it.
	RedactPII bool `json:"redactPii"`
}

// PrivacySettings returns an organization's privacy settings (nothing
// redacted when none were set).
func (c *SettingStore) PrivacySettings(ctx context.Context, orgID string) (PrivacySettings, error) {
	s := PrivacySettings{OrgID: orgID}
	err := c.db.QueryRowContext(ctx, `SELECT redact_pii FROM org_privacy_settings WHERE org_id = ?`, orgID).Scan(&s.RedactPII)
	if errors.Is(err, sql.ErrNoRows) {
		return s, nil
	}
	return s, err
}

// SetPrivacySettings replaces an organization's privacy settings.
func (c *SettingStore) SetPrivacySettings(ctx context.Context, s PrivacySettings) error {
	return c.setOrgSetting(ctx, s.OrgID, `INSERT OR REPLACE INTO org_privacy_settings (org_id, redact_pii, modified_on) VALUES (?, ?, ?)`,
		s.OrgID, s.RedactPII, now())
}

// setOrgSetting writes an organization's settings row (an INSERT OR
// REPLACE), checking in the same transaction that the organization exists.
func (c *SettingStore) setOrgSetting(ctx context.Context, orgID, upsert string, args ...any) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM organizations WHERE id = ?`, orgID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("organization %s: %w", orgID, ErrNotFound)
		}
		_, err := tx.ExecContext(ctx, upsert, args...)
		return err
	})
}
