package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/internal/lab/demo"
	"github.com/earshot/earshot/internal/lab/dialogues"
)

// benchIngestCommand measures ingest as operators run it: a fresh data
// directory, a server, the starter classifiers, archives uploaded through
// the API, then `earshot jobs run ingest`, timed, and the server's memory.
func benchIngestCommand(cfg *cli.Config) *cobra.Command {
	var archives, chats, runs, autoForm int
	var warmUp bool
	var keep, baseline, format, workerList, profile, traceFile string
	cmd := &cobra.Command{
		Use:   "ingest",
		Short: "Ingest end to end: chats in tar archives uploaded to a fresh server, `earshot jobs run ingest` timed, server memory",
		Long: `Starts earshot serve on a fresh data directory (the bootstrap organization
with the starter classifiers imported), uploads --archives tar archives of
--chats generated chats each (--format tar or zip) through the upload API, then times
` + "`earshot jobs run ingest`" + ` (the server runs it) and reads the server's peak
and current resident memory, and how fast the uploads came in with the
server's CPU per GB of them. --baseline runs the same with another earshot
binary (an earlier release) and prints both. --workers 1,2,all runs it once per
number of ingest workers (all: the machine's cores), each on a fresh server,
and prints the scaling: the speed-up over the first, and the server's CPU
per 10,000 chats. --runs N repeats every run N times, the binaries and counts
of workers taking turns, and prints the median run with the range of rates: a
busy machine's figures move from run to run. --auto-form N runs this build
once more with an auto-scored evaluation form of N questions bound to the
starter classifiers (every conversation gets its Auto evaluation in the
commit), and prints what it costs beside the run without: the median of
each round's pair of runs (the two in turn first), which a busy machine's
drift moves less than the medians' difference. --warm-up has each server
ingest as many other archives first, not measured: the figures are then a
warm server's (a fresh server's first job also grows its heap from
nothing).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			binaries := []benchBinary{{label: "this build", path: self}}
			if autoForm > 0 {
				binaries = append(binaries, benchBinary{label: fmt.Sprintf("this build, auto form of %d", autoForm), path: self, autoForm: autoForm})
			}
			if baseline != "" {
				binaries = append(binaries, benchBinary{label: "baseline " + filepath.Base(baseline), path: baseline})
			}
			tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', tabwriter.AlignRight)
			if format != "tar" && format != "zip" {
				return fmt.Errorf("--format is tar or zip, not %q", format)
			}
			workers, err := parseWorkers(workerList)
			if err != nil {
				return err
			}
			if runs < 1 {
				return fmt.Errorf("--runs must be at least 1")
			}
			// Runs alternate between the binaries and the counts of workers,
			// so that a machine that slows down meanwhile slows each alike.
			results := make([][][]ingestResult, len(binaries))
			for b := range binaries {
				results[b] = make([][]ingestResult, len(workers))
			}
			for round := range runs {
				for k := range binaries {
					b := k
					if round%2 == 1 { // each binary first in turn
						b = len(binaries) - 1 - k
					}
					bin := binaries[b]
					for w, n := range workers {
						data := keep
						if data == "" || bin.path != self || len(binaries) > 1 || len(workers) > 1 || runs > 1 {
							dir, err := os.MkdirTemp("", "earshot-bench-ingest-")
							if err != nil {
								return err
							}
							defer os.RemoveAll(dir)
							data = dir
						}
						var serverFlags []string
						if profile != "" && bin.path == self {
							file := fmt.Sprintf("%s.%d", profile, n)
							if bin.autoForm > 0 {
								file += ".auto"
							}
							serverFlags = []string{"--cpu-profile", file}
						}
						if traceFile != "" && bin.path == self {
							serverFlags = append(serverFlags, "--trace", fmt.Sprintf("%s.%d", traceFile, n))
						}
						setup := ingestSetup{format: format, archives: archives, chats: chats, workers: n, autoForm: bin.autoForm, warmUp: warmUp}
						res, err := benchIngest(c.Context(), bin.path, data, setup, c.ErrOrStderr(), serverFlags...)
						if err != nil {
							return fmt.Errorf("%s: %w", bin.label, err)
						}
						results[b][w] = append(results[b][w], res)
					}
				}
			}
			fmt.Fprintln(tw, "run\tworkers\tchats\tarchives\twall\tconv/s\tconv/s range\tspeed-up\tserver CPU\tCPU / 10k chats\tof it GC (idle cores)\twaits / chat\tbusy: process / write / commit / figures / claim wait\tserver peak RSS\tserver RSS after\tuploads before: rate, server CPU\t")
			for b, bin := range binaries {
				var first time.Duration
				for w, n := range workers {
					res, lo, hi := medianRun(results[b][w])
					if first == 0 {
						first = res.wall
					}
					label := "default"
					if n > 0 {
						label = strconv.Itoa(n)
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.2f s\t%.0f\t%.0f–%.0f\t%.2f×\t%.2f s\t%.2f s\t%s\t%.2f\t%s\t%d MB\t%d MB\t%s\t\n", bin.label, label, res.conversations, archives,
						res.wall.Seconds(), res.rate(), lo, hi, first.Seconds()/res.wall.Seconds(), res.cpu.Seconds(),
						res.cpu.Seconds()*10000/float64(max(res.conversations, 1)), res.gcShare(), float64(res.waits)/float64(max(res.conversations, 1)), res.busy(), res.peakRSS>>20, res.rss>>20, res.uploads())
				}
			}
			tw.Flush()
			if autoForm > 0 {
				for w, n := range workers {
					wall, lo, hi := pairedCost(results[0][w], results[1][w], func(r ingestResult) time.Duration { return r.wall })
					cpu, _, _ := pairedCost(results[0][w], results[1][w], func(r ingestResult) time.Duration { return r.cpu })
					fmt.Fprintf(c.OutOrStdout(), "auto form of %d questions, workers %d: %+.1f %% wall (rounds %+.1f to %+.1f %%), %+.1f %% server CPU, median of %d paired runs (target: within 5 %%)\n",
						autoForm, n, wall, lo, hi, cpu, runs)
				}
			}
			fmt.Fprintln(c.OutOrStdout(), "targets: ≥ 15,000 conv/s for 10,000 chats; 1 → 2 workers ≥ 1.8× (with idle cores beside them); ≤ 1.5 s of server CPU per 10,000 chats")
			return nil
		},
	}
	cmd.Flags().IntVar(&archives, "archives", 100, "tar archives uploaded")
	cmd.Flags().IntVar(&chats, "chats", 100, "generated chats in each archive")
	cmd.Flags().StringVar(&format, "format", "tar", "archive format: tar or zip")
	cmd.Flags().StringVar(&keep, "keep", "", "use (and keep) this empty data directory instead of a temporary one")
	cmd.Flags().StringVar(&baseline, "baseline", "", "another earshot binary (an earlier release) to run the same benchmark with")
	cmd.Flags().IntVar(&runs, "runs", 1, "runs of each binary and count of workers, alternating; the median run (by wall time) is printed, with the range")
	cmd.Flags().StringVar(&traceFile, "trace", "", "write an execution trace of this build's server (uploads and ingest) to FILE.WORKERS (go tool trace)")
	cmd.Flags().StringVar(&profile, "cpu-profile", "", "write a CPU profile of this build's server (uploads and ingest) to FILE.WORKERS, FILE.WORKERS.auto with --auto-form (go tool pprof)")
	cmd.Flags().BoolVar(&warmUp, "warm-up", false, "before the measured job, have each server ingest as many other archives in a job of its own, not measured: a warm server's figures (its heap grown and its pools filled, as a job finds them right after another) instead of a fresh one's first job")
	cmd.Flags().IntVar(&autoForm, "auto-form", 0, "also run this build with an auto-scored form of this many questions bound to the starter classifiers")
	cmd.Flags().StringVar(&workerList, "workers", "", "ingest workers to run with, one run each: a list such as 1,2,all (all: the machine's cores); default: the server's default")
	return cmd
}

// parseWorkers reads --workers: counts of ingest workers, "all" for the
// machine's cores; none is one run with the server's default (0).
func parseWorkers(list string) ([]int, error) {
	if strings.TrimSpace(list) == "" {
		return []int{0}, nil
	}
	var out []int
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		if w == "all" {
			out = append(out, runtime.NumCPU())
			continue
		}
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--workers %q: want counts of workers such as 1,2,all", list)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchBinary is an earshot binary the benchmark runs, and whether its
// organization has an auto-scored form (of that many questions).
type benchBinary struct {
	label, path string
	autoForm    int
}

type ingestResult struct {
	conversations int64
	wall, cpu     time.Duration // cpu: the server's, user and system
	peakRSS, rss  int64
	// waits are how often the server's threads gave up their core to wait
	// (voluntary context switches): each a hand-off between goroutines or
	// threads, which a machine of many idle cores pays most for.
	waits int64
	// stages are how long the job's stages were busy (its counts'
	// processing_ms, writing_ms, committing_ms, figures_ms); nil from a
	// build without.
	stages []int64
	// gc is the server's garbage collection during the run; nil from a
	// build whose /metrics does not say.
	gc *gcCPU
	// upload is the archives' upload before the run (four at a time), and
	// uploadCPU the server's CPU while they came in.
	upload    uploaded
	uploadCPU time.Duration
}

// uploads are the upload's rate and the server's CPU per GB received.
func (r ingestResult) uploads() string {
	gb := float64(r.upload.bytes) / 1e9
	return fmt.Sprintf("%.0f MB/s, %.2f s / GB", gb*1000/r.upload.wall.Seconds(), r.uploadCPU.Seconds()/gb)
}

// gcShare is the run's garbage collection CPU, and of it the marking on
// otherwise idle cores, in seconds.
func (r ingestResult) gcShare() string {
	if r.gc == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f (%.2f) s", r.gc.total.Seconds(), r.gc.idle.Seconds())
}

// ingestStages are the counts of an ingest run's busy stages.
var ingestStages = []string{"processing_ms", "writing_ms", "committing_ms", "figures_ms", "claim_wait_ms"}

// busy is how long each stage was busy, in seconds: the stage busy for
// about the whole wall time is the one the others wait for; then how long
// processing waited for its batches' claims.
func (r ingestResult) busy() string {
	if r.stages == nil {
		return "–"
	}
	parts := make([]string, len(r.stages))
	for i, ms := range r.stages {
		parts[i] = "–"
		if ms >= 0 {
			parts[i] = fmt.Sprintf("%.2f", float64(ms)/1000)
		}
	}
	return strings.Join(parts, " / ") + " s"
}

// rate is the run's conversations per second.
func (r ingestResult) rate() float64 { return float64(r.conversations) / r.wall.Seconds() }

// medianRun is the run of median wall time (the slower of the middle two
// of an even count), with the lowest and highest rates of all.
func medianRun(runs []ingestResult) (median ingestResult, lo, hi float64) {
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(a, b ingestResult) int { return cmp.Compare(a.wall, b.wall) })
	return sorted[len(sorted)/2], sorted[len(sorted)-1].rate(), sorted[0].rate()
}

// pairedCost is what the second runs cost beside the first, in percent:
// the median over the rounds of each round's pair, with the lowest and
// highest.
func pairedCost(first, second []ingestResult, measure func(ingestResult) time.Duration) (median, lo, hi float64) {
	costs := make([]float64, len(first))
	for i := range first {
		costs[i] = 100 * (measure(second[i]).Seconds()/measure(first[i]).Seconds() - 1)
	}
	slices.Sort(costs)
	m := len(costs) / 2
	median = costs[m]
	if len(costs)%2 == 0 {
		median = (costs[m-1] + costs[m]) / 2
	}
	return median, costs[0], costs[len(costs)-1]
}

// ingestSetup is one run of the ingest benchmark: archives of chats in
// format, ingested by workers ingest workers (0: the server's default),
// with an auto-scored form of autoForm questions (0: none), after a job of
// as many other archives when warmUp.
type ingestSetup struct {
	format                             string
	archives, chats, workers, autoForm int
	warmUp                             bool
}

// benchIngest runs the benchmark on a server with serverFlags.
func benchIngest(ctx context.Context, self, data string, setup ingestSetup, log io.Writer, serverFlags ...string) (ingestResult, error) {
	var res ingestResult
	flags := append([]string{"--rate-limit", "0"}, serverFlags...) // the uploads are the setup, not what is measured
	if setup.workers > 0 {
		flags = append(flags, "--ingest-workers", strconv.Itoa(setup.workers))
	}
	server, err := startServer(ctx, self, data, log, flags...)
	if err != nil {
		return res, err
	}
	defer server.stop()
	if err := importStarter(ctx, self, []string{"--data", data}); err != nil {
		return res, err
	}
	bearer, err := bootstrapToken(server.base, filepath.Join(data, "credentials.json"))
	if err != nil {
		return res, err
	}
	if setup.autoForm > 0 {
		api := demo.API{BaseURL: server.base, Token: strings.TrimPrefix(bearer, "Bearer "), HTTP: http.DefaultClient}
		if err := createAutoForm(ctx, api, setup.autoForm); err != nil {
			return res, err
		}
	}
	if setup.warmUp {
		if _, err := uploadArchives(ctx, []string{server.base}, bearer, setup.format, setup.archives, setup.chats, warmUpArchives, log); err != nil {
			return res, err
		}
		fmt.Fprintln(log, "warming the server up: earshot jobs run ingest, not measured…")
		if _, err := runIngestJob(ctx, self, []string{"--data", data}); err != nil {
			return res, err
		}
	}
	uploadCPU, err := processCPU(server.pid)
	if err != nil {
		return res, err
	}
	if res.upload, err = uploadArchives(ctx, []string{server.base}, bearer, setup.format, setup.archives, setup.chats, measuredArchives, log); err != nil {
		return res, err
	}
	if res.uploadCPU, err = processCPU(server.pid); err != nil {
		return res, err
	}
	res.uploadCPU -= uploadCPU
	fmt.Fprintln(log, "running earshot jobs run ingest…")
	cpuBefore, err := processCPU(server.pid)
	if err != nil {
		return res, err
	}
	waitsBefore, err := processWaits(server.pid)
	if err != nil {
		return res, err
	}
	gcBefore, gcServed, err := readGCCPU(ctx, server.base)
	if err != nil {
		return res, err
	}
	began := time.Now()
	counts, err := runIngestJob(ctx, self, []string{"--data", data})
	res.wall = time.Since(began)
	res.conversations = counts["conversations"]
	if _, ok := counts[ingestStages[0]]; ok {
		for _, stage := range ingestStages {
			ms, ok := counts[stage]
			if !ok {
				ms = -1 // an earlier release's run
			}
			res.stages = append(res.stages, ms)
		}
	}
	if err == nil && setup.autoForm > 0 && counts["auto_evaluations"] != res.conversations {
		err = fmt.Errorf("%d Auto evaluations for %d conversations", counts["auto_evaluations"], res.conversations)
	}
	cpuAfter, cerr := processCPU(server.pid)
	res.cpu = cpuAfter - cpuBefore
	waitsAfter, werr := processWaits(server.pid)
	res.waits = waitsAfter - waitsBefore
	if err := errors.Join(err, cerr, werr); err != nil {
		return res, err
	}
	if gcServed {
		gcAfter, _, err := readGCCPU(ctx, server.base)
		if err != nil {
			return res, err
		}
		gc := gcAfter.since(gcBefore)
		res.gc = &gc
	}
	res.peakRSS, res.rss, err = processMemory(server.pid)
	return res, err
}

// importStarter imports the starter classifiers into the bootstrap
// organization (earshot admin classifiers import default --starter FLAGS).
func importStarter(ctx context.Context, self string, flags []string) error {
	args := append([]string{"admin", "classifiers", "import", "default", "--starter"}, flags...)
	if out, err := exec.CommandContext(ctx, self, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("import the starter classifiers: %v\n%s", err, out)
	}
	return nil
}

// archiveSet names a set of generated archives: its file names' prefix
// and its generator's seed (the chats of two sets differ).
type archiveSet struct {
	prefix string
	seed   uint64
}

var (
	measuredArchives = archiveSet{"bench", 2025}
	warmUpArchives   = archiveSet{"warm-up", 2026}
)

// uploadArchives generates a set of chat archives and uploads them, four
// at a time, through the servers in turn.
func uploadArchives(ctx context.Context, bases []string, bearer, format string, archives, chats int, set archiveSet, log io.Writer) (uploaded, error) {
	fmt.Fprintf(log, "uploading %d %s archives of %d chats…\n", archives, format, chats)
	gen := dialogues.New(set.seed)
	start := time.Now().UTC().Add(-time.Hour)
	bodies := make([][]byte, archives)
	var sent uploaded
	for a := range bodies {
		var err error
		if bodies[a], err = chatArchive(gen, start, format, a, chats); err != nil {
			return sent, err
		}
		sent.bytes += int64(len(bodies[a]))
	}
	began := time.Now()
	errs := make([]error, len(bodies))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for a, body := range bodies {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[a] = uploadArchive(ctx, bases[a%len(bases)], bearer, fmt.Sprintf("%s-%03d.%s", set.prefix, a, format), body)
		}()
	}
	wg.Wait()
	sent.wall = time.Since(began)
	return sent, errors.Join(errs...)
}

// uploaded is what uploadArchives sent: the archives' bytes, and how long
// sending them took (not generating them).
type uploaded struct {
	bytes int64
	wall  time.Duration
}

// runIngestJob runs earshot jobs run ingest FLAGS (the server of the data
// directory runs it) and returns its counts.
func runIngestJob(ctx context.Context, self string, flags []string) (map[string]int64, error) {
	out, err := exec.CommandContext(ctx, self, append([]string{"jobs", "run", "ingest"}, flags...)...).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil, fmt.Errorf("jobs run ingest: %w: %s", err, exit.Stderr)
	}
	if err != nil {
		return nil, fmt.Errorf("jobs run ingest: %w", err)
	}
	var run struct {
		Status string           `json:"status"`
		Counts map[string]int64 `json:"counts"`
	}
	if err := json.Unmarshal(out, &run); err != nil || run.Status != "succeeded" {
		return nil, fmt.Errorf("jobs run ingest: %s (%v)", out, err)
	}
	return run.Counts, nil
}

// chatArchive is a tar (or zip) of chats generated from start on.
func chatArchive(gen *dialogues.Generator, start time.Time, format string, archive, chats int) ([]byte, error) {
	var buf bytes.Buffer
	tw, zw := tar.NewWriter(&buf), zip.NewWriter(&buf)
	for i := range chats {
		body, err := gen.Dialogue(start.Add(time.Duration(archive*chats+i) * time.Second)).EarshotJSON(nil)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("chats/%04d.json", i)
		if format == "zip" {
			err = zipFile(zw, name, body)
		} else {
			err = tarFile(tw, name, body)
		}
		if err != nil {
			return nil, err
		}
	}
	var err error
	if format == "zip" {
		err = zw.Close()
	} else {
		err = tw.Close()
	}
	return buf.Bytes(), err
}

func tarFile(w *tar.Writer, name string, body []byte) error {
	if err := w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}

func zipFile(w *zip.Writer, name string, body []byte) error {
	f, err := w.Create(name)
	if err == nil {
		_, err = f.Write(body)
	}
	return err
}

// waitReady waits for /readyz to answer 200.
// benchServer is an earshot serve process started for a benchmark.
type benchServer struct {
	base string // http://ADDR
	pid  int
	stop func()
}

// startServer runs `BINARY serve` on a loopback port over the data
// directory, without scheduled jobs, with the extra flags, and waits until
// it is ready.
func startServer(ctx context.Context, binary, data string, log io.Writer, flags ...string) (*benchServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := append([]string{"serve", "--data", data, "--addr", addr, "--log-level", "warn",
		"--schedule-ingest", "off", "--schedule-compact", "off", "--schedule-sample", "off", "--schedule-export", "off"}, flags...)
	server := exec.CommandContext(ctx, binary, args...)
	server.Stderr = log
	if err := server.Start(); err != nil {
		return nil, err
	}
	s := &benchServer{base: "http://" + addr, pid: server.Process.Pid, stop: func() {
		server.Process.Signal(syscall.SIGTERM)
		server.Wait()
	}}
	if err := waitReady(ctx, s.base); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func waitReady(ctx context.Context, base string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return errors.New("the server was not ready within 60 s")
}

// readCredentials reads the bootstrap client's credentials.json.
func readCredentials(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var creds map[string]string
	err = json.Unmarshal(raw, &creds)
	return creds, err
}

// bootstrapToken is a token for the bootstrap client of a fresh server.
func bootstrapToken(base, credentialsPath string) (string, error) {
	creds, err := readCredentials(credentialsPath)
	if err != nil {
		return "", err
	}
	resp, err := http.PostForm(base+"/connect/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {creds["client_id"]}, "client_secret": {creds["client_secret"]}})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("token: %s %v", resp.Status, err)
	}
	return "Bearer " + tok.AccessToken, nil
}

// uploadArchive sends one archive through POST /Media/Upload.
func uploadArchive(ctx context.Context, base, bearer, name string, body []byte) error {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("metadata", `{"FileName":"`+name+`","UploadType":"Chat"}`)
	part, _ := mw.CreateFormFile("file", name)
	part.Write(body)
	mw.Close()
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/Media/Upload", &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("upload %s: %s %s", name, resp.Status, msg)
	}
	return nil
}

// processCPU is the CPU time a process has used (utime and stime of
// /proc/PID/stat, in clock ticks of 1/100 s).
func processCPU(pid int) (time.Duration, error) {
	fields, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	return ticks(fields[11], fields[12]), nil
}

// treeCPU is the CPU time of a process, of its children that have ended
// (cutime, cstime) and of those still running: a PostgreSQL server and
// its backends.
func treeCPU(pid int) (time.Duration, error) {
	fields, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	total := ticks(fields[11], fields[12], fields[13], fields[14])
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		child, _ := strconv.Atoi(filepath.Base(dir))
		f, err := procStat(child)
		if err == nil && f[1] == strconv.Itoa(pid) { // the parent's pid
			total += ticks(f[11], f[12], f[13], f[14])
		}
	}
	return total, nil
}

// procStat are the fields of /proc/PID/stat after the command (which is in
// parentheses and may hold spaces): state first, then the parent's pid.
func procStat(pid int) ([]string, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	_, rest, _ := strings.Cut(string(raw), ") ")
	fields := strings.Fields(rest)
	if len(fields) < 15 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	return fields, nil
}

// ticks adds clock ticks of 1/100 s.
func ticks(values ...string) time.Duration {
	var n int64
	for _, v := range values {
		t, _ := strconv.ParseInt(v, 10, 64)
		n += t
	}
	return time.Duration(n) * 10 * time.Millisecond
}

// processWaits is how often a process's threads have given up their core
// to wait (voluntary_ctxt_switches of each /proc/PID/task/TID/status; the
// process's own status counts its first thread alone).
func processWaits(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/status", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("threads of process %d: none found (%v)", pid, err)
	}
	var n int64
	for _, task := range tasks {
		raw, err := os.ReadFile(task)
		if err != nil {
			continue // a thread that has ended
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if value, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				waits, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
				n += waits
			}
		}
	}
	return n, nil
}

// processMemory is a process's peak and current resident memory in bytes
// (VmHWM and VmRSS of /proc/PID/status).
func processMemory(pid int) (peak, current int64, err error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if key == "VmHWM" {
			peak = kb << 10
		} else {
			current = kb << 10
		}
	}
	return peak, current, nil
}
