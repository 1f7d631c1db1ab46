// Package cli is earshot's command line: its configuration, the wiring of
// the packages into a server, and the operators' commands. It only reads
// configuration, wires the packages together and handles signals. Two
// binaries run it: earshot (cmd/earshot, the product) and earshot-lab
// (cmd/earshot-lab: the same commands and the demo and benchmarks).
package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// A Command makes a command over the shared configuration.
type Command func(*Config) *cobra.Command

// Main runs earshot's commands and the extra ones in this process, with
// its garbage collector tuned (gc.go), and exits with status 1 on an
// error.
func Main(extra ...Command) {
	tuneGC()
	if err := Root(extra...).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "earshot:", err)
		os.Exit(1)
	}
}

// Root is earshot's command tree with the extra commands added.
func Root(extra ...Command) *cobra.Command {
	cfg := defaultConfig()
	root := &cobra.Command{
		Use:   "earshot",
		Short: "Self-hostable conversation analytics: ingest calls and chats, analyse them, query the results.",
		// Configuration comes from flags, then EARSHOT_* variables, then defaults.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd.Flags())
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&cfg.DataDir, "data", cfg.DataDir, "data directory: catalog, signing keys, local bucket, admin socket (env EARSHOT_DATA)")
	root.PersistentFlags().StringVar(&cfg.Catalog, "catalog", cfg.Catalog, "catalog address: sqlite://PATH (default sqlite://DATA/catalog.db), or postgres://USER@HOST/DB?… for several processes or machines on one catalog (env EARSHOT_CATALOG)")
	root.PersistentFlags().StringVar(&cfg.Bucket, "bucket", cfg.Bucket, "object storage: file://DIR or gs://BUCKET/PREFIX (default file://DATA/bucket; env EARSHOT_BUCKET)")
	serve := serveCommand(&cfg)
	scheduleFlags(serve, &cfg)
	// The commands that run jobs (admin and jobs do when no server runs).
	jobRunners := []*cobra.Command{serve, adminCommand(&cfg), jobsCommand(&cfg), ingestCommand(&cfg)}
	for _, cmd := range jobRunners {
		JobFlags(cmd, &cfg)
	}
	root.AddCommand(jobRunners...)
	root.AddCommand(sqlCommand(&cfg), warehouseCommand(&cfg), asrCommand(), versionCommand())
	for _, make := range extra {
		root.AddCommand(make(&cfg))
	}
	return root
}
