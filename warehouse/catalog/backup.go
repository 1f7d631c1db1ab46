package catalog

import (
	"context"
	"database/sql"
)

// BackupKeys are the bucket objects a catalog (a backup's snapshot) names:
// the manifest's lake files, and the staged uploads its records name
// (pending, kept originals, deletions still to come).
func (c *Catalog) BackupKeys(ctx context.Context) (lakeFiles, staged []string, err error) {
	if lakeFiles, err = queryStrings(ctx, c.db, `SELECT path FROM lake_files ORDER BY path`); err != nil {
		return nil, nil, err
	}
	staged, err = queryStrings(ctx, c.db, `SELECT staged_key FROM interactions WHERE staged_key IS NOT NULL
		UNION SELECT staged_key FROM staged_deletions ORDER BY 1`)
	return lakeFiles, staged, err
}

// restoredFailure is the failure of an upload whose staged file a
// restored backup lacks.
const restoredFailure = "This upload's file was processed and deleted after the backup's snapshot was taken, so the restored " +
	"installation does not have it; send the file again."

// SettleRestored makes a catalog just restored from a backup workable at
// once: no upload stays claimed by a process of the backed-up
// installation, no run stays "running", and the pending uploads whose
// staged files the backup lacks (missing) fail with a sentence saying why.
func (c *Catalog) SettleRestored(ctx context.Context, missing []string) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		t := now()
		for _, statement := range []struct {
			query string
			args  []any
		}{
			{`UPDATE interactions SET lease_owner = NULL, lease_expires = NULL WHERE lease_owner IS NOT NULL`, nil},
			{`UPDATE job_runs SET status = 'failed', ended_on = ?, error = 'interrupted: the installation was restored from a backup taken while it ran'
				WHERE status = 'running'`, []any{t}},
			{`INSERT INTO process_failures (id, org_id, interaction_id, message, created_on)
				SELECT id || '-restored', org_id, id, ?, ? FROM interactions WHERE status = 'Processing' AND ` + anyOf("staged_key"),
				[]any{restoredFailure, t, list(missing)}},
			{`UPDATE interactions SET status = 'FailedToProcess', modified_on = ? WHERE status = 'Processing' AND ` + anyOf("staged_key"),
				[]any{t, list(missing)}},
		} {
			if _, err := tx.ExecContext(ctx, statement.query, statement.args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// Empty tells whether the catalog holds no organization yet (a restore's
// target: earshot serve makes one on its first start).
func (c *Catalog) Empty(ctx context.Context) (bool, error) {
	var n int
	err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM organizations`).Scan(&n)
	return n == 0, err
}
