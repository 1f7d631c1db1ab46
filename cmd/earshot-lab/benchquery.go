package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/earshot/earshot/internal/timing"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/api"
	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// queryCase is one benchmarked request and the same page queried directly.
type queryCase struct {
	name   string
	path   string // request path and query, without the cursor
	cursor string // cursor parameter name
	deep   bool
	page   results.PageQuery
	table  string
	// classifiers are the ones whose results the page lists.
	classifiers []string
}

func benchQueryCommand(cfg *cli.Config) *cobra.Command {
	var runs int
	var profile string
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Latency of API pages and console dashboards over a lake from earshot bench gen",
		Long: `Serves the API of the data directory on a loopback port and times 1000-item
pages through HTTP (p50, p99 over --runs requests): /ModelResults over the
whole range and /Conversations/Insights over 7 and 31 days, first and deep
pages (the cursor halfway through the range), with and without a hierarchy
filter; beside each, the same page's lake queries run directly in DuckDB on
the same files (no catalog check, JSON or HTTP), the two taking turns
request by request, and a second table of each page's steps (its
Server-Timing) beside the direct queries' two, and the CPU time a page
takes served in process and queried directly. Then the console's
dashboard over 14 days (all, hierarchy R1) and all 92 days, as a
signed-in administrator, beside its figure queries alone, taking turns
too (conversations per day, hit rates, every team's and agent's figures
over the range and the period before it, for the trends);
their "items" are the conversations counted. Then the console's
conversation list filtered by a classifier's result over all 92 days:
newest first, a deep page, and oldest first, beside the lake's search
alone. It reads the first organization earshot bench gen created.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if profile != "" {
				stop, err := cli.StartCPUProfile(profile)
				if err != nil {
					return err
				}
				defer stop()
			}
			timings, err := measureQueries(cmd.Context(), cfg, runs)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "query\tfirst\tHTTP p50\tHTTP p99\tDuckDB p50\tDuckDB p99\tHTTP/DuckDB p50\tHTTP − DuckDB p50\titems\t")
			for _, q := range timings {
				first := "–"
				if q.first > 0 {
					first = ms(q.first)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.2f×\t%s\t%d\t\n", q.name, first, ms(q.httpP50), ms(q.httpP99), ms(q.directP50), ms(q.directP99),
					float64(q.httpP50)/float64(q.directP50), ms(q.httpP50-q.directP50), q.items)
			}
			tw.Flush()
			fmt.Fprintln(cmd.OutOrStdout(), "targets: p50 ≤ 25 ms, p99 ≤ 100 ms, HTTP ≤ 1.3× DuckDB; API pages HTTP − DuckDB p50 ≤ 3 ms")
			fmt.Fprintln(cmd.OutOrStdout())
			printSteps(cmd.OutOrStdout(), timings)
			return nil
		},
	}
	cmd.Flags().IntVar(&runs, "runs", 50, fmt.Sprintf("requests per query (after %d warm-up requests)", warmUpRuns))
	cmd.Flags().StringVar(&profile, "cpu-profile", "", "write a CPU profile of the runs to this file (go tool pprof)")
	return cmd
}

// queryTiming is one benchmarked page's latency, through HTTP and
// straight in DuckDB.
type queryTiming struct {
	name                 string
	first                time.Duration // a dashboard's first request (cold figures); 0 for pages
	httpP50, httpP99     time.Duration
	directP50, directP99 time.Duration
	items                int
	// handlerP50 is the API page served in process, without HTTP;
	// handlerCPU and directCPU the CPU time a page took, served in process
	// and queried directly; bareP50 the page's body alone sent by a bare
	// net/http server (what moving its bytes costs).
	handlerP50, handlerCPU, directCPU, bareP50 time.Duration
	// steps are an API page's steps (its Server-Timing), p50 each;
	// directSteps the direct queries' two ("lake", "fetch").
	steps, directSteps map[string]time.Duration
}

// pageSteps are the steps of an API page, in the order they run; fetch
// runs beside verify, and a first Insights page's count beside the page.
var pageSteps = []string{"auth", "params", "files", "lake", "verify", "fetch", "keep", "count", "ids", "layout", "encode"}

// printSteps prints where each API page's time goes: the page served in
// process (no HTTP), the direct queries' two steps beside the page's own
// lake and fetch, its steps' p50s, the time between them before the body
// (its "total" less the steps), and the rest of the HTTP p50 (sending the
// body and reading it, HTTP itself) beside the same body sent by a bare
// server; then the CPU time a page took served in process and queried
// directly (all cores: on a machine of few cores, the API's CPU beyond
// DuckDB's is wall time too).
func printSteps(w io.Writer, timings []queryTiming) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "API page, p50 per step	HTTP	in process	DuckDB lake	DuckDB fetch	"+strings.Join(pageSteps, "\t")+"\tbetween steps\tsending\tbare HTTP\tCPU in process\tCPU direct\tCPU over direct\t")
	for _, q := range timings {
		if len(q.steps) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t", q.name, ms(q.httpP50), ms(q.handlerP50), ms(q.directSteps["lake"]), ms(q.directSteps["fetch"]))
		for _, s := range pageSteps {
			fmt.Fprintf(tw, "%s\t", ms(q.steps[s]))
		}
		inside := q.steps["auth"] + q.steps["params"] + q.steps["files"] + q.steps["lake"] + max(q.steps["verify"], q.steps["fetch"]) + q.steps["keep"] +
			q.steps["ids"] + q.steps["layout"] + q.steps["encode"]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", ms(max(q.steps["total"]-inside, 0)), ms(max(q.httpP50-q.steps["total"], 0)), ms(q.bareP50),
			ms(q.handlerCPU), ms(q.directCPU), ms(q.handlerCPU-q.directCPU))
	}
	tw.Flush()
}

// measureQueries serves the API of the configuration's catalog and lake on
// a loopback port and times each benchmarked page (queryCases) of the
// organization earshot bench gen created first.
func measureQueries(ctx context.Context, cfg *cli.Config, runs int) ([]queryTiming, error) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := cli.OpenStack(ctx, cfg, log, api.Options{PublicURL: "http://127.0.0.1"})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	orgs, err := st.Catalog.Orgs.Organizations(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(orgs, func(o catalog.Organization) bool { return o.Name == "generated-1" })
	if i < 0 {
		return nil, fmt.Errorf("no organization generated-1 in %s: run earshot bench gen first", cfg.DataDir)
	}
	org := orgs[i].ID
	token, err := st.Tokens.IssueForOperator(org, oauth.Scope)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: st.Handler}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	bare, err := newBareServer()
	if err != nil {
		return nil, err
	}
	defer bare.Close()
	cases, err := queryCases(ctx, st.Catalog, org)
	if err != nil {
		return nil, err
	}
	var out []queryTiming
	for _, c := range cases {
		if c.deep {
			if c.page.AfterID, err = midCursor(ctx, st.Catalog, c.page); err != nil {
				return nil, err
			}
		}
		target := base + c.path + "&" + c.cursor + "=" + c.page.AfterID
		var body bytes.Buffer
		steps, directSteps := map[string][]time.Duration{}, map[string][]time.Duration{}
		queryDirect := func(steps map[string][]time.Duration) error {
			tctx, took := timing.With(ctx)
			_, err := st.Reader.Direct(tctx, c.page, c.table, c.classifiers)
			for name, d := range took.Took() {
				steps[name] = append(steps[name], d)
			}
			return err
		}
		var served bytes.Buffer
		serve := func() error { return servePage(ctx, st.Handler, target, token, &served) }
		if err := serve(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		bare.send(bytes.Clone(served.Bytes()))
		var bareBody bytes.Buffer
		times, err := timeInTurns(runs, func() error { return getPage(ctx, target, token, &body, steps) },
			serve, func() error { return queryDirect(directSteps) }, func() error { return getPage(ctx, bare.url, "", &bareBody, nil) })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		httpTimes, handler, direct, bareTimes := times[0], times[1], times[2], times[3]
		// The CPU a page takes is read over runs of its own: the turns'
		// runs mix the three.
		_, handlerCPU, err := timeRunsCPU(runs, serve)
		if err != nil {
			return nil, fmt.Errorf("%s in process: %w", c.name, err)
		}
		_, directCPU, err := timeRunsCPU(runs, func() error { return queryDirect(map[string][]time.Duration{}) })
		if err != nil {
			return nil, fmt.Errorf("%s direct: %w", c.name, err)
		}
		// Counted once, after the timed requests: latency is the time to
		// the whole body, not the client's scan of it.
		out = append(out, queryTiming{name: c.name, httpP50: pct(httpTimes, 50), httpP99: pct(httpTimes, 99),
			directP50: pct(direct, 50), directP99: pct(direct, 99), handlerP50: pct(handler, 50), bareP50: pct(bareTimes, 50), handlerCPU: handlerCPU, directCPU: directCPU, items: bytes.Count(body.Bytes(), []byte(`"conversationId":`)),
			steps: medians(steps), directSteps: medians(directSteps)})
	}
	dashboards, err := measureDashboards(ctx, st, base, org, runs)
	return append(out, dashboards...), err
}

// queryCases are the benchmarked pages: the generated range starts on the
// first arrival day in the lake.
func queryCases(ctx context.Context, cat *catalog.Catalog, org string) ([]queryCase, error) {
	files, err := cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: org})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("the lake of organization %s is empty (earshot bench gen first)", org)
	}
	first, last := files[0].Date, files[len(files)-1].Date // by date
	classifiers, err := cat.Classifiers.Classifiers(ctx, org, catalog.ClassifierFilter{ActiveOnly: true})
	if err != nil {
		return nil, err
	}
	var models []string
	for _, cl := range classifiers {
		models = append(models, cl.ID)
	}
	tree, err := cat.People.Hierarchy(ctx, org)
	if err != nil {
		return nil, err
	}
	r1, _ := tree.ByCode("R1")
	region := tree.Descendants(r1.ID)
	start := first.AddDate(0, 0, 30) // a window inside the range
	week, month := start.Add(7*24*time.Hour), start.Add(31*24*time.Hour)
	day := func(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339)) }
	mr := "/ModelResults?pageSize=1000&modelIds=" + strings.Join(models, ",")
	insights := func(to time.Time, extra string) string {
		return "/Conversations/Insights?PageSize=1000&StartDate=" + day(start) + "&EndDate=" + day(to) + extra
	}
	all := results.PageQuery{OrgID: org, Window: results.Window{From: first, To: last.Add(24*time.Hour - time.Microsecond)}, Limit: 1000}
	w7 := results.PageQuery{OrgID: org, Window: results.Window{From: start, To: week}, Limit: 1000}
	w31 := results.PageQuery{OrgID: org, Window: results.Window{From: start, To: month}, Limit: 1000}
	w7h, w31h := w7, w31
	w7h.NodeIDs, w31h.NodeIDs = region, region
	allh := all
	allh.NodeIDs = region
	types := "&ClassifierTypes=" + url.QueryEscape("Classifier,Core AI Model")
	return []queryCase{
		{"ModelResults, all 92 days, first page", mr, "lastId", false, all, "model_results", models},
		{"ModelResults, all 92 days, deep page", mr, "lastId", true, all, "model_results", models},
		{"ModelResults, hierarchy R1, first page", mr + "&hierarchyCodes=R1", "lastId", false, allh, "model_results", models},
		{"Insights, 7 days, first page", insights(week, ""), "LastId", false, w7, "classifier_results", models},
		{"Insights, 7 days, deep page", insights(week, ""), "LastId", true, w7, "classifier_results", models},
		{"Insights, 7 days, hierarchy R1, first page", insights(week, "&HierarchyCodes=R1"), "LastId", false, w7h, "classifier_results", models},
		{"Insights, 31 days, hierarchy R1, first page", insights(month, "&HierarchyCodes=R1"), "LastId", false, w31h, "classifier_results", models},
		{"Insights, 31 days, hierarchy R1, deep page", insights(month, "&HierarchyCodes=R1"), "LastId", true, w31h, "classifier_results", models},
		{"Insights, 31 days, classifier types, first page", insights(month, types), "LastId", false, w31, "classifier_results", models},
	}, nil
}

// midCursor is a cursor halfway through a page query's conversations:
// the first id of the middle one of its conversations files, found in the
// manifest so that setting up a deep page reads no lake file.
func midCursor(ctx context.Context, cat *catalog.Catalog, q results.PageQuery) (string, error) {
	files, err := cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "conversations", From: q.From, To: q.To})
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no conversations to page through: %v", err)
	}
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = f.MinID
	}
	slices.Sort(ids)
	return ids[len(ids)/2], nil
}

// getPage requests a page and reads its body whole into buf (reused, so
// that the client's own buffer growth is not timed), failing on any
// status but 200, and adds its Server-Timing steps to steps.
func getPage(ctx context.Context, target, token string, buf *bytes.Buffer, steps map[string][]time.Duration) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	for name, d := range timing.Parse(resp.Header.Get("Server-Timing")) {
		steps[name] = append(steps[name], d)
	}
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d %s", target, resp.StatusCode, buf.Bytes())
	}
	return err
}

// bareServer sends the body it was last given, whatever is asked, from a
// bare net/http server on a loopback port: a page's bytes moved with no API
// at all.
type bareServer struct {
	url  string
	body atomic.Pointer[[]byte]
	srv  *http.Server
}

func newBareServer() (*bareServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &bareServer{url: "http://" + ln.Addr().String() + "/"}
	b.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		body := *b.body.Load()
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})}
	go b.srv.Serve(ln)
	return b, nil
}

// send has the server send body from its next request on.
func (b *bareServer) send(body []byte) { b.body.Store(&body) }

func (b *bareServer) Close() error { return b.srv.Close() }

// servePage answers a page's request in process, without a connection:
// the API's own time, without HTTP's. The page is written into buf, reused
// as getPage reuses it: growing a new one to megabytes each time would
// add the bench's garbage to the API's.
func servePage(ctx context.Context, h http.Handler, target, token string, buf *bytes.Buffer) error {
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	buf.Reset()
	rec := httptest.NewRecorder()
	rec.Body = buf
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return fmt.Errorf("%s: %d %s", target, rec.Code, rec.Body.Bytes())
	}
	return nil
}

// medians are each step's p50.
func medians(steps map[string][]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, ds := range steps {
		slices.Sort(ds)
		out[name] = pct(ds, 50)
	}
	return out
}

// warmUpRuns are the runs before the timed ones, left out of the figures.
const warmUpRuns = 3

// timeRuns times runs of fn after the warm-up runs, fastest first.
func timeRuns(runs int, fn func() error) ([]time.Duration, error) {
	var out []time.Duration
	for i := range runs + warmUpRuns {
		if err := timeRun(fn, &out, i >= warmUpRuns); err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

// timeInTurns times each of fns as timeRuns does, taking turns, each
// first in its turn of the runs: they are compared (an API page through
// HTTP, in process and its direct queries), and whatever else the machine
// does meanwhile then falls on all alike.
func timeInTurns(runs int, fns ...func() error) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(fns))
	for i := range runs + warmUpRuns {
		for k := range fns {
			at := (i + k) % len(fns)
			if err := timeRun(fns[at], &times[at], i >= warmUpRuns); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range times {
		slices.Sort(t)
	}
	return times, nil
}

// timeRun runs fn, and adds its time to times unless it is a warm-up run.
func timeRun(fn func() error, times *[]time.Duration, kept bool) error {
	began := time.Now()
	if err := fn(); err != nil {
		return err
	}
	if kept {
		*times = append(*times, time.Since(began))
	}
	return nil
}

// timeRunsCPU is timeRuns, and the CPU time this process used a run (the
// mean, warm-up runs included): the API's own work and DuckDB's threads,
// whatever runs beside them.
func timeRunsCPU(runs int, fn func() error) ([]time.Duration, time.Duration, error) {
	before, err := processCPU(os.Getpid())
	if err != nil {
		return nil, 0, err
	}
	times, err := timeRuns(runs, fn)
	if err != nil {
		return nil, 0, err
	}
	after, err := processCPU(os.Getpid())
	return times, (after - before) / time.Duration(runs+warmUpRuns), err
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
