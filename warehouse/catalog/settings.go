package catalog

import (
	"context"
	"database/sql"
	"fmt"
)

// SettingStore keeps each organization's audio and privacy settings.
type SettingStore struct{ handle }

// setOrgSetting writes an organization's settings row (an upsert),
// checking in the same transaction that the organization exists.
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
