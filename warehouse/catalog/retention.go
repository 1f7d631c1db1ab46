package catalog

import (
	"context"
	"database/sql"
)

// recordStagedDeletions records, in the commit's transaction, the staged
// originals of the batch's processed uploads whose organization redacts
// personal data and does not keep originals. Failed uploads keep theirs
// (an operator may process them again).
func recordStagedDeletions(ctx context.Context, tx *sql.Tx, outcomes []UploadOutcome) error {
	var ids []string
	for _, o := range outcomes {
		if o.Status != StatusFailedToProcess && !o.Partial {
			ids = append(ids, o.Upload.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO staged_deletions (interaction_id, staged_key)
		SELECT i.id, i.staged_key FROM interactions i JOIN org_privacy_settings p ON p.org_id = i.org_id
		WHERE p.redact_pii AND NOT p.keep_originals AND i.staged_key IS NOT NULL
		AND `+anyOf("i.id")+` ON CONFLICT DO NOTHING`, list(ids))
	return err
}

// StagedDeletion is a staged original to delete from the bucket.
type StagedDeletion struct {
	InteractionID, StagedKey string
}

// StagedDeletions are up to limit staged originals waiting to be deleted.
func (c *InteractionStore) StagedDeletions(ctx context.Context, limit int) ([]StagedDeletion, error) {
	return queryAll(ctx, c.db, func(s scanner) (StagedDeletion, error) {
		var d StagedDeletion
		return d, s.Scan(&d.InteractionID, &d.StagedKey)
	}, `SELECT interaction_id, staged_key FROM staged_deletions ORDER BY interaction_id LIMIT ?`, limit)
}

// StagedDeleted records that the originals of these interactions are gone
// from the bucket.
func (c *InteractionStore) StagedDeleted(ctx context.Context, ids []string) error {
	_, err := c.exec(ctx, `DELETE FROM staged_deletions WHERE `+anyOf("interaction_id"), list(ids))
	return err
}
