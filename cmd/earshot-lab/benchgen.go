package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakedb"
	"github.com/earshot/earshot/warehouse/results"
)

func benchGenCommand(cfg *cli.Config) *cobra.Command {
	o := lakegen.Defaults(1_000_000)
	var start string
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Write a generated lake into the data directory (for earshot bench query)",
		Long: `Creates organizations (a three-level hierarchy of 3 regions, 9 sites and 36
teams, and classifiers: phrase classifiers and one sentiment model) and commits
their conversations day by day through the real lake writer and one catalog
transaction a day: every processed conversation has every classifier's result
in classifier_results and model_results, a share has a human review, a few are
still processing; each day's dashboard figures are kept as the ingest job keeps
them. The same --seed writes the same data. Use a data directory
of its own: the server must not be running on it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, out := cmd.Context(), cmd.OutOrStdout()
			day, err := time.Parse(time.DateOnly, start)
			if err != nil {
				return fmt.Errorf("--start: %w", err)
			}
			o.Start = day
			if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
				return err
			}
			cat, err := cli.OpenCatalog(ctx, cfg)
			if err != nil {
				return err
			}
			defer cat.Close()
			bucket, err := blob.Open(ctx, cfg.BucketURL())
			if err != nil {
				return err
			}
			defer bucket.Close()
			writer := &lake.Writer{Bucket: bucket}
			if root, cached := cli.LakeRoot(cfg); cached {
				writer.Cache = root
			}
			root, _ := cli.LakeRoot(cfg)
			engine, err := lakedb.Open(ctx, root)
			if err != nil {
				return err
			}
			defer engine.Close()
			// The dashboards' figures are kept as the ingest job keeps them.
			o.Committed = (&results.Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: engine, Figures: cat.Manifest}).KeepFigures
			bar := cli.ProgressBar(o.Conversations, "committing conversations")
			o.Progress = func(done int) { bar.Set(done) }
			began := time.Now()
			orgs, err := lakegen.Generate(ctx, cat, writer, o)
			bar.Finish()
			if err != nil {
				return err
			}
			took := time.Since(began)
			fmt.Fprintf(out, "\n%d conversations of %d organizations over %d days from %s in %s (%.0f conversations/s, %d result rows each)\n",
				o.Conversations, len(orgs), o.Days, start, took.Round(time.Second), float64(o.Conversations)/took.Seconds(), 2*o.Classifiers)
			for _, g := range orgs {
				fmt.Fprintf(out, "organization %s: %d classifiers, hierarchy codes R1…R3, R1S1…, R1S1T1…\n", g.ID, len(g.Classifiers))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Conversations, "conversations", o.Conversations, "conversations over all organizations")
	f.IntVar(&o.Orgs, "orgs", o.Orgs, "organizations")
	f.IntVar(&o.Days, "days", o.Days, "days of arrivals")
	f.IntVar(&o.Classifiers, "classifiers", o.Classifiers, "classifiers per organization")
	f.StringVar(&start, "start", o.Start.Format(time.DateOnly), "first arrival day")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "random seed")
	f.Float64Var(&o.ReviewShare, "review-share", o.ReviewShare, "share of conversations with a human review")
	return cmd
}
