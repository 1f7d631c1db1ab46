package cli

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/lakedb"
)

// Before each interruption crashRoundArchives archives of crashChats
// chats (of crashTurns turns each) are uploaded: 6,500 chats in 26
// archives in all. Each interruption comes a random moment after a run of
// the job it aims at (ingest, or for some compaction) is seen to start:
// within the time the job's last finished run took.
const (
	crashChats         = 250
	crashTurns         = 24
	crashRoundArchives = 2
	crashKills         = 10 // SIGKILL
	crashTerms         = 3  // SIGTERM
)

// The real earshot serve, ingesting and compacting on short schedules, is
// interrupted at random moments by SIGKILL and SIGTERM; between each
// interruption and the restart other earshot commands open the data
// directory, as an operator's would. After every restart /readyz answers
// 200 within 5 s, and at the end every uploaded chat is in the API and in
// the lake exactly once and every upload has a final status.
// EARSHOT_CRASH_SEED replays a run's interruption times.
func TestIngestSurvivesCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test runs real processes for a minute or more")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("EARSHOT_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("EARSHOT_CRASH_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	signals := make([]syscall.Signal, 0, crashKills+crashTerms)
	for range crashKills {
		signals = append(signals, syscall.SIGKILL)
	}
	for range crashTerms {
		signals = append(signals, syscall.SIGTERM)
	}
	rng.Shuffle(len(signals), func(i, j int) { signals[i], signals[j] = signals[j], signals[i] })

	data := t.TempDir()
	srv := &crashServer{t: t, data: data}
	uploaded, killedMidRun := 0, 0
	for round, sig := range signals {
		srv.start()
		for range crashRoundArchives {
			srv.upload(uploaded)
			uploaded++
		}
		job := "ingest"
		if rng.IntN(4) == 0 {
			job = "compact"
		}
		took := waitForRun(t, data, job)
		time.Sleep(time.Duration(rng.Int64N(int64(took))))
		srv.stop(sig)
		pending, running := inFlight(t, data)
		if sig == syscall.SIGKILL && len(running) > 0 {
			killedMidRun++
		}
		t.Logf("round %d: ready in %v, %v during %s, left %d of %d archives Processing and runs %v unfinished",
			round, srv.ready.Round(time.Millisecond), sig, job, pending, uploaded, running)
		operatorCommands(t, data)
	}
	// Kills fall inside a run, or (a run that went faster than the last)
	// just after it ended.
	if killedMidRun < crashKills/2 {
		t.Errorf("only %d of %d kills interrupted a job run", killedMidRun, crashKills)
	}
	srv.start()
	srv.waitIngested()

	chats := srv.list("ProcessedChat")
	ids, names := map[string]bool{}, map[string]bool{}
	for _, c := range chats {
		ids[c["id"].(string)], names[c["fileName"].(string)] = true, true
	}
	if len(chats) != uploaded*crashChats || len(ids) != len(chats) || len(names) != len(chats) {
		t.Fatalf("the API lists %d chats (%d ids, %d file names), want %d", len(chats), len(ids), len(names), uploaded*crashChats)
	}
	for _, up := range srv.list("Chat") {
		if up["status"] != "ReadyToSample" && up["status"] != "Sampled" {
			t.Errorf("upload %s ends %s", up["fileName"], up["status"])
		}
	}
	srv.stop(syscall.SIGTERM)
	lakeHasEachOnce(t, data, ids)
}

// crashServer is earshot serve in a child process on a data directory.
type crashServer struct {
	t      *testing.T
	data   string
	addr   string
	cmd    *exec.Cmd
	bearer string
	ready  time.Duration // how long the last start took to answer /readyz 200
	lease  string        // --ingest-lease; "" is 2s
	args   []string      // more flags of serve
}

func (s *crashServer) start() {
	t := s.t
	t.Helper()
	s.addr = freeAddr(t)
	lease := s.lease
	if lease == "" {
		lease = "2s"
	}
	s.cmd = child(t, nil, "serve", "--data", s.data, "--addr", s.addr, "--log-level", "warn",
		"--ingest-batch", "1", "--ingest-lease", lease, "--schedule-ingest", "@every 1s", "--schedule-compact", "@every 3s",
		"--schedule-sample", "off", "--schedule-export", "off")
	s.cmd.Args = append(s.cmd.Args, s.args...)
	began := time.Now()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		resp, err := http.Get("http://" + s.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Since(began) > 5*time.Second {
			s.cmd.Process.Kill()
			t.Fatalf("/readyz not 200 within 5 s of the start (last: %v)", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	s.ready = time.Since(began)
	var creds map[string]string
	raw, _ := os.ReadFile(filepath.Join(s.data, "credentials.json"))
	json.Unmarshal(raw, &creds)
	s.bearer = "Bearer " + fetchToken(t, s.addr, creds["client_id"], creds["client_secret"])["access_token"].(string)
}

// stop sends sig and waits for the process to end.
func (s *crashServer) stop(sig syscall.Signal) {
	s.t.Helper()
	s.cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		s.t.Fatalf("serve did not stop within 60 s of %v", sig)
	}
}

// upload sends archive i through the API.
func (s *crashServer) upload(i int) {
	t := s.t
	t.Helper()
	name := fmt.Sprintf("a%02d.tar", i)
	if err := uploadChats(s.addr, s.bearer, name, longChatTar(crashChats, crashTurns, fmt.Sprintf("a%02d", i))); err != nil {
		t.Fatal(err)
	}
}

// list pages through the records of a media type.
func (s *crashServer) list(mediaType string) []map[string]any {
	t := s.t
	t.Helper()
	var all []map[string]any
	last := ""
	for {
		req, _ := http.NewRequest("GET", "http://"+s.addr+"/Metadata?PageSize=1000&MediaType="+mediaType+"&LastId="+last, nil)
		req.Header.Set("Authorization", s.bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page []map[string]any
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /Metadata: %s %v", resp.Status, err)
		}
		if len(page) == 0 {
			return all
		}
		all = append(all, page...)
		last = page[len(page)-1]["id"].(string)
	}
}

// waitIngested waits until no upload is still Processing.
func (s *crashServer) waitIngested() {
	s.t.Helper()
	waitNoneProcessing(s.t, func() []map[string]any { return s.list("Chat") }, 3*time.Minute, 500*time.Millisecond)
}

// operatorCommands are what an operator runs while the server is down:
// each must work on the data directory as the crash left it.
func operatorCommands(t *testing.T, data string) {
	t.Helper()
	var out bytes.Buffer
	sql := child(t, nil, "sql", "--data", data, "SELECT count(*) FROM conversations")
	sql.Stdout, sql.Stderr = &out, &out
	// Before the first commit the lake has no conversations yet: the view
	// says so, which is an answer too.
	if err := sql.Run(); err != nil && !strings.Contains(out.String(), "nothing has been processed") {
		t.Fatalf("earshot sql after a crash: %v\n%s", err, out.String())
	}
	for _, args := range [][]string{{"admin", "org", "list"}, {"jobs", "list", "--limit", "3"}} {
		out.Reset()
		cmd := child(t, nil, append(args, "--data", data)...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("earshot %s after a crash: %v\n%s", strings.Join(args, " "), err, out.String())
		}
	}
}

// lakeHasEachOnce checks the lake as readers see it: among the rows of the
// manifest's conversations files, each conversation has exactly one of
// its current run, and no other conversation has any.
func lakeHasEachOnce(t *testing.T, data string, ids map[string]bool) {
	t.Helper()
	db := testlake.CatalogSQL(t, filepath.Join(data, "catalog.db"))
	runs := map[string]string{}
	rows, err := db.Query(`SELECT id, lake_run_id FROM interactions WHERE lake_run_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, run string
		rows.Scan(&id, &run)
		runs[id] = run
	}
	rows.Close()
	var paths []string
	rows, _ = db.Query(`SELECT path FROM lake_files WHERE table_name = 'conversations'`)
	for rows.Next() {
		var p string
		rows.Scan(&p)
		paths = append(paths, p)
	}
	rows.Close()
	lake := testlake.Engine(t, filepath.Join(data, "bucket"))
	rows, err = lake.QueryContext(context.Background(), `SELECT conversation_id, run_id FROM read_parquet(`+lakedb.FileList(lake.Root(), paths)+`)`)
	if err != nil {
		t.Fatal(err)
	}
	current := map[string]int{}
	for rows.Next() {
		var id, run string
		rows.Scan(&id, &run)
		if runs[id] == run {
			current[id]++
		}
	}
	rows.Close()
	for id := range ids {
		if current[id] != 1 {
			t.Errorf("conversation %s has %d current rows in the lake", id, current[id])
		}
	}
	if len(current) != len(ids) {
		t.Errorf("the lake has current rows of %d conversations, the API lists %d", len(current), len(ids))
	}
}

// waitForRun waits until a run of job is running (the catalog file read
// as another process would) and returns how long the job's last finished
// run took (a guess when none has finished).
func waitForRun(t *testing.T, data, job string) (lastRunTook time.Duration) {
	t.Helper()
	db := testlake.CatalogSQL(t, filepath.Join(data, "catalog.db"))
	defer db.Close()
	lastRunTook = 200 * time.Millisecond
	var started, ended time.Time
	if db.QueryRow(`SELECT started_on, ended_on FROM job_runs WHERE job = ? AND status = 'succeeded' ORDER BY id DESC LIMIT 1`, job).
		Scan(&started, &ended) == nil && ended.After(started) {
		lastRunTook = ended.Sub(started)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM job_runs WHERE job = ? AND status = 'running'`, job).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return lastRunTook
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s run started within 20 s", job)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// inFlight is what a stopped server left unfinished: uploads still
// Processing, and the jobs whose runs it never ended.
func inFlight(t *testing.T, data string) (pending int, running []string) {
	t.Helper()
	db := testlake.CatalogSQL(t, filepath.Join(data, "catalog.db"))
	defer db.Close()
	if err := db.QueryRow(`SELECT count(*) FROM interactions WHERE status = 'Processing'`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT job FROM job_runs WHERE status = 'running' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var job string
		rows.Scan(&job)
		running = append(running, job)
	}
	return pending, running
}

// longChatTar is an archive of n chats of turns turns each, in the
// earshot JSON format.
func longChatTar(n, turns int, prefix string) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i := range n {
		var msgs []string
		for k := range turns {
			who := []string{"Agent", "Customer"}[k%2]
			msgs = append(msgs, fmt.Sprintf(`{"participant":%q,"text":"Turn %d of chat %s %d: I would like to check the status of my order and my refund, thank you for waiting."}`, who, k, prefix, i))
		}
		body := `{"messages":[` + strings.Join(msgs, ",") + `]}`
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("%s/%04d.json", prefix, i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		w.Write([]byte(body))
	}
	w.Close()
	return buf.Bytes()
}
