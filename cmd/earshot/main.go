// Command earshot is Earshot's single binary: the API server with its job
// scheduler (serve) and the operators' commands. It only reads
// configuration, wires the packages together and handles signals.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := rootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "earshot:", err)
		os.Exit(1)
	}
}

func rootCommand() *cobra.Command {
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
	root.PersistentFlags().StringVar(&cfg.Catalog, "catalog", cfg.Catalog, "catalog address: sqlite://PATH (default sqlite://DATA/catalog.db) (env EARSHOT_CATALOG)")
	serve := serveCommand(&cfg)
	scheduleFlags(serve, &cfg)
	// The commands that run jobs (admin and jobs do when no server runs).
	jobRunners := []*cobra.Command{serve, adminCommand(&cfg), jobsCommand(&cfg), ingestCommand(&cfg), demoCommand(&cfg)}
	for _, cmd := range jobRunners {
		jobFlags(cmd, &cfg)
	}
	root.AddCommand(jobRunners...)
	root.AddCommand(sqlCommand(&cfg), warehouseCommand(&cfg), asrCommand(), benchCommand(&cfg), versionCommand())
	return root
}
