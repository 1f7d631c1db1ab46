package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/internal/pgtest"
	"github.com/earshot/earshot/warehouse/catalog"
)

// benchPeersCommand measures what more than one process on one catalog
// gives: ingest by one and two processes on PostgreSQL beside one on
// SQLite, and the query pages through a replica on PostgreSQL beside the
// SQLite process that wrote the lake.
func benchPeersCommand(cfg *cli.Config) *cobra.Command {
	var archives, chats, runs, queryRuns int
	var lakeDir string
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "Several processes on one catalog: ingest throughput by 1 and 2 processes on PostgreSQL beside 1 on SQLite; query pages through a PostgreSQL replica beside SQLite",
		Long: `Starts a throwaway PostgreSQL cluster (Debian's postgresql; fsync on, as a
production server runs) and, for each of: one process on a SQLite catalog, one
on PostgreSQL, two on PostgreSQL — fresh catalogs, one shared file:// bucket,
a data directory per process — uploads --archives tar archives of --chats
generated chats (spread over the processes), then runs
` + "`earshot jobs run ingest`" + ` on every process at once and times until all
have returned. The processes share the claims; the conversations they wrote
are counted and must add up.

With --lake DIR (a data directory of earshot bench gen, on SQLite), the lake's
catalog is copied into the cluster (timed), and the pages of earshot bench
query are timed through the SQLite catalog and through a replica: a process
with a data directory of its own on the PostgreSQL copy and the same bucket.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, out, log := c.Context(), c.OutOrStdout(), c.ErrOrStderr()
			self, err := os.Executable()
			if err != nil {
				return err
			}
			cluster, err := pgtest.StartDurable()
			if err != nil {
				return err
			}
			defer cluster.Stop()
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
			postgres, err := cluster.ServerPID()
			if err != nil {
				return err
			}
			fmt.Fprintln(tw, "catalog\tprocesses\tround\tchats\twall\tconv/s\tearshot CPU\tPostgreSQL CPU\tchats by process\t")
			for round := 1; round <= runs; round++ {
				for i, setup := range []struct {
					engine    string
					processes int
				}{{"SQLite", 1}, {"PostgreSQL", 1}, {"PostgreSQL", 2}} {
					address := ""
					if setup.engine == "PostgreSQL" {
						if address, err = cluster.CreateDatabase(fmt.Sprintf("ingest_%d_%d", round, i)); err != nil {
							return err
						}
					}
					res, err := benchPeersIngest(ctx, self, address, setup.processes, archives, chats, postgres, log)
					if err != nil {
						return fmt.Errorf("%s, %d processes: %w", setup.engine, setup.processes, err)
					}
					fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f s\t%.0f\t%.2f s\t%.2f s\t%v\t\n", setup.engine, setup.processes, round, res.conversations,
						res.wall.Seconds(), float64(res.conversations)/res.wall.Seconds(), res.cpu.Seconds(), res.postgresCPU.Seconds(), res.byProcess)
				}
			}
			tw.Flush()
			if lakeDir == "" {
				return nil
			}
			fmt.Fprintln(out)
			return benchReplicaQueries(ctx, cfg, cluster, lakeDir, queryRuns, out, log)
		},
	}
	cmd.Flags().IntVar(&archives, "archives", 100, "tar archives uploaded")
	cmd.Flags().IntVar(&chats, "chats", 100, "generated chats in each archive")
	cmd.Flags().IntVar(&runs, "runs", 1, "rounds of the three ingest setups")
	cmd.Flags().StringVar(&lakeDir, "lake", "", "a data directory of earshot bench gen (SQLite catalog): time its query pages through a PostgreSQL replica too")
	cmd.Flags().IntVar(&queryRuns, "query-runs", 50, "requests per query page (after 3 warm-up requests)")
	return cmd
}

type peersIngestResult struct {
	ingestResult
	postgresCPU time.Duration // the cluster's, all its databases (only one is busy)
	byProcess   []int64
}

// benchPeersIngest runs the processes on the catalog (address, "" = SQLite
// in the first process's data directory) and one new bucket, uploads the
// archives spread over them and times their ingest jobs run at once, with
// the CPU of the processes and of the PostgreSQL server (pid postgres).
func benchPeersIngest(ctx context.Context, self, address string, processes, archives, chats, postgres int, log io.Writer) (peersIngestResult, error) {
	var res peersIngestResult
	bucketDir, err := os.MkdirTemp("", "earshot-bench-bucket-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(bucketDir)
	flags := []string{"--bucket", "file://" + bucketDir}
	if address != "" {
		flags = append(flags, "--catalog", address)
	}
	// Replicas sit behind one address: the tokens' issuer.
	serverFlags := append([]string{"--public-url", "http://earshot.bench"}, flags...)
	datas := make([]string, processes)
	servers := make([]*benchServer, processes)
	bases := make([]string, processes)
	for i := range processes {
		if datas[i], err = os.MkdirTemp("", "earshot-bench-peer-"); err != nil {
			return res, err
		}
		defer os.RemoveAll(datas[i])
		if servers[i], err = startServer(ctx, self, datas[i], log, serverFlags...); err != nil {
			return res, err
		}
		defer servers[i].stop()
		bases[i] = servers[i].base
	}
	if err := importStarter(ctx, self, append([]string{"--data", datas[0]}, flags...)); err != nil {
		return res, err
	}
	bearer, err := bootstrapToken(bases[0], filepath.Join(datas[0], "credentials.json"))
	if err != nil {
		return res, err
	}
	if _, err := uploadArchives(ctx, bases, bearer, "tar", archives, chats, measuredArchives, log); err != nil {
		return res, err
	}
	fmt.Fprintf(log, "running earshot jobs run ingest on %d process(es) at once…\n", processes)
	cpuBefore := make([]time.Duration, processes)
	for i, s := range servers {
		if cpuBefore[i], err = processCPU(s.pid); err != nil {
			return res, err
		}
	}
	postgresBefore, err := treeCPU(postgres)
	if err != nil {
		return res, err
	}
	res.byProcess = make([]int64, processes)
	errs := make([]error, processes)
	began := time.Now()
	var wg sync.WaitGroup
	for i := range processes {
		wg.Go(func() {
			var counts map[string]int64
			counts, errs[i] = runIngestJob(ctx, self, append([]string{"--data", datas[i]}, flags...))
			res.byProcess[i] = counts["conversations"]
		})
	}
	wg.Wait()
	res.wall = time.Since(began)
	postgresAfter, err := treeCPU(postgres)
	if err != nil {
		return res, err
	}
	res.postgresCPU = postgresAfter - postgresBefore
	for i, s := range servers {
		if errs[i] != nil {
			return res, errs[i]
		}
		cpu, err := processCPU(s.pid)
		if err != nil {
			return res, err
		}
		res.cpu += cpu - cpuBefore[i]
		res.conversations += res.byProcess[i]
	}
	if want := int64(archives * chats); res.conversations != want {
		return res, fmt.Errorf("the processes wrote %d conversations (%v), want %d", res.conversations, res.byProcess, want)
	}
	return res, nil
}

// benchReplicaQueries copies the lake's SQLite catalog into a new database
// of the cluster and times the query pages through both.
func benchReplicaQueries(ctx context.Context, cfg *cli.Config, cluster *pgtest.Cluster, lakeDir string, runs int, out, log io.Writer) error {
	address, err := cluster.CreateDatabase("query")
	if err != nil {
		return err
	}
	fmt.Fprintln(log, "copying the lake's catalog into PostgreSQL…")
	began := time.Now()
	copied, err := catalog.Copy(ctx, catalog.SchemePrefix+filepath.Join(lakeDir, "catalog.db"), address)
	if err != nil {
		return err
	}
	var rows int64
	for _, n := range copied {
		rows += n
	}
	fmt.Fprintf(out, "catalog copied into PostgreSQL: %d rows in %.1f s\n\n", rows, time.Since(began).Seconds())

	onSQLite := *cfg
	onSQLite.DataDir, onSQLite.Catalog, onSQLite.Bucket = lakeDir, "", ""
	replica := *cfg
	if replica.DataDir, err = os.MkdirTemp("", "earshot-bench-replica-"); err != nil {
		return err
	}
	defer os.RemoveAll(replica.DataDir)
	replica.Catalog, replica.Bucket = address, onSQLite.BucketURL()
	fmt.Fprintln(log, "timing the pages on SQLite…")
	local, err := measureQueries(ctx, &onSQLite, runs)
	if err != nil {
		return fmt.Errorf("on SQLite: %w", err)
	}
	fmt.Fprintln(log, "timing the pages through the PostgreSQL replica…")
	remote, err := measureQueries(ctx, &replica, runs)
	if err != nil {
		return fmt.Errorf("through the replica: %w", err)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tSQLite p50\treplica on PostgreSQL p50\tSQLite p99\treplica p99\titems\t")
	for i, l := range local {
		r := remote[i]
		if r.items != l.items {
			return fmt.Errorf("%s: %d items on SQLite, %d through the replica", l.name, l.items, r.items)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t\n", l.name, ms(l.httpP50), ms(r.httpP50), ms(l.httpP99), ms(r.httpP99), l.items)
	}
	return tw.Flush()
}
