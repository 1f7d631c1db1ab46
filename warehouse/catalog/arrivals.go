package catalog

import (
	"context"
	"database/sql"
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

// RecordArrivals records the files' first and last arrival (their
// MinArrival and MaxArrival) in their manifest entries, in one
// transaction, except in an entry that has them (or is gone: compacted
// meanwhile).
func (c *ManifestStore) RecordArrivals(ctx context.Context, files []LakeFile) error {
	if len(files) == 0 {
		return nil
	}
	defer c.manifest.invalidate(orgsOf(files)...)
	return c.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE lake_files SET min_arrival = ?, max_arrival = ? WHERE path = ? AND min_arrival IS NULL`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		err = eachRow(ctx, len(files), func(rowCtx context.Context, i int) error {
			_, err := stmt.ExecContext(rowCtx, stampPtr(files[i].MinArrival), stampPtr(files[i].MaxArrival), files[i].Path)
			return err
		})
		if err != nil {
			return err
		}
		return c.changed(ctx, tx, domainManifest, orgsOf(files)...)
	})
}
