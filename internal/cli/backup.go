package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/warehouse/backup"
	"github.com/earshot/earshot/warehouse/blob"
)

// backupCommands take and restore backups (warehouse/backup).
func backupCommands(cfg *Config) []*cobra.Command {
	take := &cobra.Command{
		Use:   "backup DIR",
		Short: "Back up the catalog and the bucket objects it names into DIR, a new directory (works while the server runs)",
		Long: `Takes one consistent snapshot of the catalog (SQLite or PostgreSQL; kept as a SQLite
file), then copies every bucket object the snapshot names (the lake's files, staged and kept
uploads, the export job's snapshots) and the credentials file into DIR. Compaction keeps the
files it replaces for --backup-window (7 days), so a backup shorter than that is whole even when
compaction runs meanwhile. DIR/backup.json, written last, describes the backup.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			bucket, err := blob.Open(ctx, cfg.BucketURL())
			if err != nil {
				return err
			}
			defer bucket.Close()
			m, err := backup.Take(ctx, backup.Source{Catalog: cfg.catalogAddress(), Bucket: bucket, Credentials: cfg.CredentialsPath(),
				Version: buildVersion()}, args[0])
			if err != nil {
				return err
			}
			return printJSON(cmd, m)
		},
	}
	restore := &cobra.Command{
		Use:   "restore DIR",
		Short: "Restore a backup into this data directory's catalog (new or empty) and bucket, with the server stopped",
		Long: `Restores the backup in DIR: its bucket objects into the bucket, its catalog into the catalog
(--catalog, or DATA/catalog.db), which must hold no data yet (restore before earshot serve first
starts there), and the credentials file where there is none. Uploads that were being ingested when
the backup was taken are given back to be ingested at the next run; uploads whose files were
processed and deleted after the snapshot fail with a sentence saying so.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if _, err := admin.Dial(cfg.adminSocket()); err == nil {
				return errors.New("a server runs on this data directory: stop it before a restore")
			}
			bucket, err := blob.Open(ctx, cfg.BucketURL())
			if err != nil {
				return err
			}
			defer bucket.Close()
			m, err := backup.Restore(ctx, args[0], cfg.catalogAddress(), bucket, cfg.CredentialsPath())
			if err != nil {
				return err
			}
			return printJSON(cmd, m)
		},
	}
	return []*cobra.Command{take, restore}
}
