package catalog

import (
	"context"
	"database/sql"
	"time"
)

// Manifest entries of conversations files record the files' first and
// last arrival (LakeFile.MinArrival, MaxArrival). Entries written by a
// release before they did are read by whole days until compaction
// records them from the files themselves.

// FilesWithoutArrivals lists the conversations files whose manifest
// entries lack their arrival range (their path, table and organization).
func (c *ManifestStore) FilesWithoutArrivals(ctx context.Context) ([]LakeFile, error) {
	return queryAll(ctx, c.db, func(s scanner) (f LakeFile, err error) {
		return f, s.Scan(&f.Path, &f.Table, &f.OrgID)
	}, `SELECT path, table_name, org_id FROM lake_files WHERE table_name = ? AND min_arrival IS NULL ORDER BY path`, tableConversations)
}

// RecordArrivals records a file's first and last arrival in its manifest
// entry, unless the entry has them (or is gone: compacted meanwhile).
func (c *ManifestStore) RecordArrivals(ctx context.Context, f LakeFile, first, last time.Time) error {
	defer c.manifest.invalidate(f.OrgID)
	return c.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE lake_files SET min_arrival = ?, max_arrival = ? WHERE path = ? AND min_arrival IS NULL`,
			stamp(first), stamp(last), f.Path)
		if err != nil {
			return err
		}
		return c.changed(ctx, tx, domainManifest, f.OrgID)
	})
}
