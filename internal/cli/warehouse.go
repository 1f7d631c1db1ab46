package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/warehouse/ddl"
	"github.com/earshot/earshot/warehouse/lake"
)

func warehouseCommand(cfg *Config) *cobra.Command {
	cmd := &cobra.Command{Use: "warehouse", Short: "Query the lake with other engines"}
	var o ddl.Options
	gen := &cobra.Command{
		Use:   "ddl --engine bigquery|trino|duckdb",
		Short: "Print external-table DDL over the lake's hive-partitioned files (BigQuery, Trino Hive connector, DuckDB)",
		Long: `Prints CREATE statements for the lake tables (raw lake_* tables of every run's rows,
and views of each conversation's current rows, as earshot sql has them) and the
export job's catalog snapshots, reading the Parquet files where they lie in the
bucket (--bucket, default the data directory's). Nothing is copied.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.Location == "" {
				o.Location = lakeLocation(cfg.BucketURL())
			}
			if o.Dataset == "" {
				o.Dataset = map[string]string{"bigquery": "earshot", "trino": "hive.earshot"}[o.Engine]
			}
			if o.Engine == "trino" && !strings.Contains(o.Dataset, ".") {
				return fmt.Errorf("--dataset for Trino is CATALOG.SCHEMA, e.g. hive.earshot")
			}
			return ddl.Write(c.OutOrStdout(), o)
		},
	}
	gen.Flags().StringVar(&o.Engine, "engine", "", "bigquery, trino or duckdb")
	gen.Flags().StringVar(&o.Location, "location", "", "the lake's root (default: the bucket's lake/ prefix, e.g. gs://BUCKET/PREFIX/lake)")
	gen.Flags().StringVar(&o.Dataset, "dataset", "", "BigQuery dataset (default earshot), Trino CATALOG.SCHEMA (default hive.earshot), DuckDB schema (default none)")
	gen.MarkFlagRequired("engine")
	cmd.AddCommand(gen)
	return cmd
}

// lakeLocation is where the lake is in a bucket URL: file://DIR → DIR/lake,
// gs://BUCKET/PREFIX → gs://BUCKET/PREFIX/lake.
func lakeLocation(bucketURL string) string {
	if dir, ok := strings.CutPrefix(bucketURL, "file://"); ok {
		abs, _ := filepath.Abs(dir)
		return filepath.Join(abs, strings.TrimSuffix(lake.Prefix, "/"))
	}
	return strings.TrimSuffix(bucketURL, "/") + "/" + strings.TrimSuffix(lake.Prefix, "/")
}
