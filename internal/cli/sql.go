package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/warehouse/analyst"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

func sqlCommand(cfg *Config) *cobra.Command {
	var format, orgRef string
	cmd := &cobra.Command{
		Use:   "sql [QUERY]",
		Short: "Read-only SQL over the lake (conversations, transcripts, results) and the catalog snapshots",
		Long: `Runs QUERY, or an interactive session without one, in DuckDB over views of the
lake's committed files (conversations, transcript_segments, classifier_results,
model_results) and of the export job's snapshots (organizations, users, agents,
hierarchy, classifiers). Works while earshot serve runs: it asks the server for
the manifest (or, with none running, reads it from the catalog). --org limits
every view to one organization's files.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if !slices.Contains(analyst.Formats, format) {
				return fmt.Errorf("--format must be one of %s", strings.Join(analyst.Formats, ", "))
			}
			ctx := c.Context()
			root, _ := LakeRoot(cfg)
			files, err := analystFiles(ctx, cfg, root, orgRef)
			if err != nil {
				return err
			}
			db, err := analyst.Open(ctx, root, files)
			if err != nil {
				return err
			}
			defer db.Close()
			if len(args) == 1 {
				return analyst.Run(ctx, db, c.OutOrStdout(), args[0], format)
			}
			return analyst.Shell(ctx, db, c.InOrStdin(), c.OutOrStdout(), format, term.IsTerminal(int(os.Stdin.Fd())))
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output: table, csv or json")
	cmd.Flags().StringVar(&orgRef, "org", "", "only this organization's data (id or name)")
	return cmd
}

// analystFiles are the files of earshot sql's views: the manifest's
// committed lake files (from the running server, else the catalog, closed
// again before the session starts) and the export snapshots.
func analystFiles(ctx context.Context, cfg *Config, root, orgRef string) (analyst.Files, error) {
	if !cfg.CatalogExists() {
		return nil, fmt.Errorf("no Earshot data in %s (run earshot serve, or earshot demo, first)", cfg.DataDir)
	}
	ops, done, err := OpenAdmin(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer done()
	orgID := ""
	if orgRef != "" {
		if orgID, err = resolveOrg(ctx, ops, orgRef); err != nil {
			return nil, err
		}
	}
	manifest, err := ops.LakeFiles(ctx, orgID)
	if err != nil {
		return nil, err
	}
	files := analyst.Files{}
	for _, f := range manifest {
		files[f.Table] = append(files[f.Table], f.Path)
	}
	org := "*"
	if orgID != "" {
		org = orgID
	}
	if _, cached := LakeRoot(cfg); cached {
		if err := fetchForAnalysts(ctx, cfg, root, manifest, org); err != nil {
			return nil, err
		}
	}
	snapshots, err := exportFiles(root, org)
	if err != nil {
		return nil, err
	}
	for _, key := range snapshots {
		table := strings.Split(strings.TrimPrefix(key, jobs.ExportPrefix), "/")[0]
		files[table] = append(files[table], key)
	}
	return files, nil
}

// exportFiles are the keys of the export snapshots' files under root, of
// the organization org ("*": every one's): one file a table, or a file or
// more a day.
func exportFiles(root, org string) ([]string, error) {
	var keys []string
	for _, pattern := range []string{jobs.ExportPath("*", org), jobs.ExportDir("*", org) + "date=*/*.parquet"} {
		paths, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil {
			return nil, err
		}
		for _, path := range paths {
			rel, _ := filepath.Rel(root, path)
			keys = append(keys, filepath.ToSlash(rel))
		}
	}
	return keys, nil
}

// fetchForAnalysts brings the files earshot sql reads into the local cache
// of a remote bucket: the manifest's files it lacks, and every export
// snapshot afresh (each export replaces them), the cache's copies of
// snapshot files the bucket no longer has (days gone) dropped; of the
// organization org, or every one's ("*").
func fetchForAnalysts(ctx context.Context, cfg *Config, root string, manifest []catalog.LakeFile, org string) error {
	bucket, err := blob.Open(ctx, cfg.BucketURL())
	if err != nil {
		return err
	}
	defer bucket.Close()
	if _, err := lake.Fill(ctx, bucket, root, catalog.Paths(manifest)); err != nil {
		return fmt.Errorf("lake cache: %w", err)
	}
	listed := map[string]bool{}
	for obj, err := range bucket.List(ctx, jobs.ExportPrefix) {
		if err != nil {
			return err
		}
		if org != "*" && !strings.Contains(obj.Key, "/org="+org+"/") {
			continue
		}
		listed[obj.Key] = true
		rc, err := bucket.Get(ctx, obj.Key)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("fetch %s: %w", obj.Key, err)
		}
		if err := lake.WriteCache(root, obj.Key, data); err != nil {
			return err
		}
	}
	return evictUnlisted(root, org, listed)
}

// evictUnlisted drops from the cache at root the organization's (org "*":
// every one's) export snapshot files that listed lacks: the days a
// snapshot no longer has, and files of a layout before them.
func evictUnlisted(root, org string, listed map[string]bool) error {
	cached, err := exportFiles(root, org)
	if err != nil {
		return err
	}
	for _, key := range cached {
		if !listed[key] {
			lake.Evict(root, key)
		}
	}
	return nil
}
