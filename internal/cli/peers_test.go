package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/pgtest"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/results"
)

// The peers test: two real earshot serve processes on one PostgreSQL
// catalog and one bucket, each with a data directory of its own; the
// operator's commands run from a third directory, through the catalog
// (no socket). peerArchives archives of peerChats chats are uploaded,
// alternately through each process.
const (
	peerArchives = 24
	peerChats    = 200
	peerTurns    = 8
	peerClientID = "peer-client"
	peerSecret   = "peer-secret-0123456789"
)

func TestPeersOnPostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("the peers test runs real processes on a real PostgreSQL")
	}
	t.Run("both finish", func(t *testing.T) { runPeers(t, false) })
	t.Run("one killed mid-ingest", func(t *testing.T) { runPeers(t, true) })
}

func runPeers(t *testing.T, kill bool) {
	// The day the uploads arrive on: the pages walked at the end ask for
	// it, not for the day they are walked on (which may be the next).
	arriving := time.Now().UTC()
	catalogURL := pgtest.Start(t).URL()
	bucket := "file://" + filepath.Join(t.TempDir(), "bucket")
	operator := t.TempDir()
	common := []string{"--catalog", catalogURL, "--bucket", bucket}
	// Replicas sit behind one address: the tokens' issuer.
	serving := append([]string{"--public-url", "http://earshot.test"}, common...)

	a := startPeer(t, "A", serving)
	b := startPeer(t, "B", serving)
	if a.bearer == "" || b.bearer == "" {
		t.Fatal("no token")
	}
	// A token from A is accepted by B, and both publish one key set.
	if got := b.get(a.bearer, "/Me"); got.code != http.StatusOK {
		t.Fatalf("B refused A's token: %d %s", got.code, got.body)
	}
	if ja, jb := a.get("", "/.well-known/jwks.json").body, b.get("", "/.well-known/jwks.json").body; ja != jb {
		t.Fatalf("the processes publish different keys:\n%s\n%s", ja, jb)
	}
	// The operator works from a directory of its own: no socket there.
	out := operatorRun(t, operator, common, "admin", "classifiers", "import", "default", "--starter")
	var starter []map[string]any
	json.Unmarshal([]byte(out), &starter)
	var modelIDs []string
	for _, c := range starter {
		modelIDs = append(modelIDs, c["id"].(string))
	}
	if len(modelIDs) < 4 {
		t.Fatalf("starter classifiers: %s", out)
	}

	db, err := sql.Open("pgx", catalogURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	for i := range peerArchives {
		via := []*peer{a, b}[i%2]
		via.upload(i)
	}
	var held []string
	if kill {
		// Once A holds leases on uploads it is processing, it dies.
		deadline := time.Now().Add(30 * time.Second)
		for len(leases(t, db, a)) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("A claimed nothing within 30 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		a.stop(syscall.SIGKILL)
		held = leases(t, db, a) // read after the kill: what A died holding
		t.Logf("A killed holding %d uploads", len(held))
	}
	survivor := b
	survivor.waitIngested(t)

	// Every chat exactly once, in the API of each live process and in the
	// lake as the operator's earshot sql reads it.
	want := peerArchives * peerChats
	live := []*peer{b}
	if !kill {
		live = []*peer{a, b}
	}
	for _, p := range live {
		chats := p.list(t, "ProcessedChat")
		ids := map[string]bool{}
		for _, c := range chats {
			ids[c["id"].(string)] = true
		}
		if len(chats) != want || len(ids) != want {
			t.Fatalf("%s lists %d chats (%d ids), want %d", p.name, len(chats), len(ids), want)
		}
	}
	out = operatorRun(t, operator, common, "sql", "--format", "json",
		"SELECT count(*) AS n, count(DISTINCT conversation_id) AS d FROM conversations")
	var counts []struct{ N, D int }
	if err := json.Unmarshal([]byte(out), &counts); err != nil || len(counts) != 1 || counts[0].N != want || counts[0].D != want {
		t.Fatalf("the lake as earshot sql reads it: %s (%v)", out, err)
	}

	// Who processed what: each conversation's lake rows came from a run of
	// one process.
	byOwner := processedBy(t, db)
	t.Logf("conversations processed by owner: %v", byOwner)
	if !kill && (byOwner[a.owner()] == 0 || byOwner[b.owner()] == 0) {
		t.Fatalf("ingest claims were not shared: %v (A %s, B %s)", byOwner, a.owner(), b.owner())
	}
	if kill {
		// What A held when it died, B processed once the lease ended.
		var takenOver int
		if err := db.QueryRow(`SELECT count(*) FROM interactions i JOIN job_runs r ON r.id = i.lake_run_id
			WHERE i.upload_id = ANY($1) AND r.owner = $2`, held, b.owner()).Scan(&takenOver); err != nil {
			t.Fatal(err)
		}
		if len(held) == 0 || takenOver != len(held)*peerChats {
			t.Fatalf("B processed %d chats of the %d archives A died holding", takenOver, len(held))
		}
	}

	if kill {
		return
	}
	// Both answer the same pages. The sample job of either may move a
	// conversation to Sampled between the two walks (Insights shows the
	// status): the walks agree once it has nothing left to sample.
	today := arriving.Format("2006-01-02")
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	for _, target := range []string{
		"/ModelResults?startDate=" + today + "&pageSize=1000&modelIds=" + strings.Join(modelIDs, ","),
		"/Conversations/Insights?StartDate=" + today + "&EndDate=" + tomorrow + "&PageSize=1000",
	} {
		deadline := time.Now().Add(time.Minute)
		for differs := "?"; differs != ""; {
			pa, pb := a.walk(t, target), b.walk(t, target)
			if len(pa) != len(pb) || len(pa) < 2 {
				t.Fatalf("%s: %d pages from A, %d from B", target, len(pa), len(pb))
			}
			differs = ""
			for i := range pa {
				if pa[i] != pb[i] {
					differs = fmt.Sprintf("%s: page %d differs between A and B", target, i)
				}
			}
			if differs != "" && time.Now().After(deadline) {
				t.Fatal(differs + ", still a minute later")
			}
		}
	}

	// The day's dashboard figures, kept in the shared catalog by the
	// processes that ingested it, count every chat once for a reader in a
	// third process.
	countKeptFigures(t, catalogURL, strings.TrimPrefix(bucket, "file://"), want)

	// A classifier created through A: listed by B within a second, and used
	// by B's next ingest (A is stopped first, so the ingest is B's). B has
	// its list in memory (its ingest read it) and lists it first.
	if listed := b.get(b.bearer, "/Conversations/Classifiers"); listed.code != http.StatusOK || strings.Contains(listed.body, "Refund talk") {
		t.Fatalf("B's list before: %d %s", listed.code, listed.body)
	}
	created := a.post(t, "/Conversations/Classifiers",
		`{"name":"Refund talk","classifierType":"classifier","categoryName":"topics","description":"d","definition":{"groups":[{"rules":[{"phrases":["refund"]}]}]}}`)
	newID := created["id"].(string)
	began := time.Now()
	for !strings.Contains(b.get(b.bearer, "/Conversations/Classifiers").body, newID) {
		if time.Since(began) > time.Second {
			t.Fatal("B did not list A's new classifier within 1 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("B listed A's new classifier after %v", time.Since(began).Round(time.Millisecond))
	a.stop(syscall.SIGTERM)
	b.upload(peerArchives)
	b.waitIngested(t)
	items := 0
	for _, page := range b.walk(t, "/ModelResults?startDate="+today+"&pageSize=1000&modelIds="+newID) {
		var list []map[string]any
		json.Unmarshal([]byte(page), &list)
		for _, it := range list {
			for _, r := range it["modelResults"].([]any) {
				if r.(map[string]any)["result"] == true {
					items++
				}
			}
		}
	}
	if items != peerChats {
		t.Fatalf("%d conversations matched the new classifier, want the %d chats of the archive B ingested after it was made", items, peerChats)
	}

	// The sample job ran once for each of its ticks, though both processes
	// had it scheduled.
	var ticks, runs int
	db.QueryRow(`SELECT count(*) FROM job_ticks WHERE job = 'sample'`).Scan(&ticks)
	db.QueryRow(`SELECT count(*) FROM job_runs WHERE job = 'sample'`).Scan(&runs)
	if ticks == 0 || runs != ticks {
		t.Fatalf("sample: %d ticks claimed, %d runs", ticks, runs)
	}
	t.Logf("sample: %d ticks, %d runs", ticks, runs)
}

// countKeptFigures reads today's dashboard figures as a fresh process
// would, from the catalog's kept figures (the lake only for what is not
// kept), and checks they count want conversations.
func countKeptFigures(t *testing.T, catalogURL, bucketDir string, want int) {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Open(ctx, catalogURL)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	engine := testlake.Engine(t, bucketDir)
	lk := &testlake.Counting{DB: engine}
	r := &results.Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: lk, Figures: cat.Manifest}
	files, err := cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{Table: "conversations"})
	if err != nil || len(files) == 0 {
		t.Fatalf("manifest: %d files, %v", len(files), err)
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	days, err := r.Daily(ctx, results.PageQuery{OrgID: files[0].OrgID,
		Window: results.Window{From: today.AddDate(0, 0, -1), To: today.AddDate(0, 0, 1).Add(-time.Microsecond)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, d := range days {
		n += d.Conversations
	}
	kept, err := cat.Manifest.KeptFigures(ctx, files[0].OrgID, []time.Time{today.AddDate(0, 0, -1), today})
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(want) || len(kept) == 0 {
		t.Fatalf("the kept figures count %d conversations (want %d); %d kept", n, want, len(kept))
	}
	// Clusters two processes' batches joined may have been read again
	// after a race between their keeps: logged, not checked.
	t.Logf("the dashboard figures: %d clusters kept, %d statements on the lake for the rest", len(kept), lk.Statements())
}

// TestRolesOnPostgreSQL: an API-only process and a jobs-only process on one
// catalog and bucket. The jobs process answers only its health and metrics
// routes; every scheduled job run (ingest of what came through the API
// process, sample) is the jobs process's.
func TestRolesOnPostgreSQL(t *testing.T) {
	catalogURL := pgtest.Start(t).URL()
	common := []string{"--catalog", catalogURL, "--bucket", "file://" + filepath.Join(t.TempDir(), "bucket")}
	api := startPeer(t, "api", append([]string{"--role", roleAPI}, common...))
	worker := startPeer(t, "jobs", append([]string{"--role", roleJobs}, common...))
	for target, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/Me": 404, "/connect/token": 404} {
		if got := worker.get("", target); got.code != want {
			t.Fatalf("jobs process: GET %s answered %d, want %d", target, got.code, want)
		}
	}
	api.upload(0)
	api.waitIngested(t)
	if chats := api.list(t, "ProcessedChat"); len(chats) != peerChats {
		t.Fatalf("%d chats, want %d", len(chats), peerChats)
	}
	db, err := sql.Open("pgx", catalogURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A sample tick has run (every 2 s).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var samples int
		if err := db.QueryRow(`SELECT count(*) FROM job_runs WHERE job = 'sample'`).Scan(&samples); err != nil {
			t.Fatal(err)
		}
		if samples > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no sample run in 30 s")
		}
	}
	rows, err := db.Query(`SELECT job, owner, count(*) FROM job_runs GROUP BY job, owner ORDER BY job`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ran := map[string]bool{}
	for rows.Next() {
		var job, owner string
		var n int
		rows.Scan(&job, &owner, &n)
		if owner != worker.owner() {
			t.Fatalf("%d %s runs by %s, not by the jobs process %s", n, job, owner, worker.owner())
		}
		ran[job] = true
	}
	if !ran["ingest"] || !ran["sample"] {
		t.Fatalf("jobs that ran: %v", ran)
	}
}

// peer is one earshot serve process.
type peer struct {
	name, data, addr, bearer string
	cmd                      *exec.Cmd
}

func startPeer(t *testing.T, name string, common []string) *peer {
	t.Helper()
	p := &peer{name: name, data: t.TempDir(), addr: freeAddr(t)}
	args := append([]string{"serve", "--data", p.data, "--addr", p.addr, "--log-level", "warn",
		"--ingest-batch", "1", "--ingest-lease", "3s", "--schedule-ingest", "@every 1s",
		"--schedule-sample", "@every 2s", "--schedule-compact", "off", "--schedule-export", "off"}, common...)
	p.cmd = child(t, []string{"EARSHOT_BOOTSTRAP_CLIENT_ID=" + peerClientID, "EARSHOT_BOOTSTRAP_CLIENT_SECRET=" + peerSecret}, args...)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + p.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: /readyz not 200 within 30 s (last: %v)", name, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	if !slices.Contains(common, roleJobs) {
		p.bearer = "Bearer " + fetchToken(t, p.addr, peerClientID, peerSecret)["access_token"].(string)
	}
	return p
}

// owner is the process's name in job runs and leases.
func (p *peer) owner() string {
	host, _ := os.Hostname()
	return host + ":" + strconv.Itoa(p.cmd.Process.Pid)
}

func (p *peer) stop(sig syscall.Signal) {
	p.cmd.Process.Signal(sig)
	p.cmd.Wait()
}

type response struct {
	code int
	body string
	next string
}

func (p *peer) get(bearer, target string) response {
	req, _ := http.NewRequest("GET", "http://"+p.addr+target, nil)
	if bearer != "" {
		req.Header.Set("Authorization", bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{code: -1, body: err.Error()}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, body: string(body), next: resp.Header.Get("X-Next-LastId")}
}

func (p *peer) post(t *testing.T, target, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+p.addr+target, strings.NewReader(body))
	req.Header.Set("Authorization", p.bearer)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST %s: %d %v", target, resp.StatusCode, out)
	}
	return out
}

// walk pages through a listing by its lastId cursor (the last item's id,
// or X-Next-LastId) and returns every page's body.
func (p *peer) walk(t *testing.T, target string) []string {
	t.Helper()
	var pages []string
	last := ""
	cursor := "lastId"
	if strings.Contains(target, "PageSize") {
		cursor = "LastId"
	}
	for {
		url := target
		if last != "" {
			url += "&" + cursor + "=" + last
		}
		r := p.get(p.bearer, url)
		if r.code == http.StatusNotFound && len(pages) > 0 {
			return pages // Insights says 404 past the last page
		}
		if r.code != http.StatusOK {
			t.Fatalf("%s GET %s: %d %s", p.name, url, r.code, r.body)
		}
		var list []map[string]any
		json.Unmarshal([]byte(r.body), &list)
		if len(list) == 0 {
			return pages
		}
		pages = append(pages, r.body)
		if last = r.next; last == "" {
			last = list[len(list)-1]["id"].(string)
		}
	}
}

func (p *peer) upload(i int) {
	name := fmt.Sprintf("p%02d.tar", i)
	if err := uploadChats(p.addr, p.bearer, name, longChatTar(peerChats, peerTurns, fmt.Sprintf("p%02d", i))); err != nil {
		panic(fmt.Sprintf("through %s: %v", p.name, err))
	}
}

// uploadChats sends a chat archive through the upload API.
func uploadChats(addr, bearer, name string, archive []byte) error {
	var body bytes.Buffer
	ct := newMultipart(&body, `{"FileName":"`+name+`","UploadType":"Chat"}`, name, archive)
	req, _ := http.NewRequest("POST", "http://"+addr+"/Media/Upload", &body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		answer, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("upload %s: %w", name, &uploadRefusal{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: string(answer)})
	}
	return nil
}

// uploadRefusal is an upload's answer other than 200.
type uploadRefusal struct {
	status     int
	retryAfter string
	body       string
}

func (r *uploadRefusal) Error() string {
	return fmt.Sprintf("%d (Retry-After %q): %s", r.status, r.retryAfter, r.body)
}

// list pages through the records of a media type.
func (p *peer) list(t *testing.T, mediaType string) []map[string]any {
	t.Helper()
	var all []map[string]any
	for _, page := range p.walk(t, "/Metadata?PageSize=1000&MediaType="+mediaType) {
		var list []map[string]any
		json.Unmarshal([]byte(page), &list)
		all = append(all, list...)
	}
	return all
}

// waitIngested waits until no upload is still Processing.
func (p *peer) waitIngested(t *testing.T) {
	t.Helper()
	waitNoneProcessing(t, func() []map[string]any { return p.list(t, "Chat") }, 2*time.Minute, 250*time.Millisecond)
}

// waitNoneProcessing waits until no upload that uploads lists is still
// Processing, failing the test after within.
func waitNoneProcessing(t *testing.T, uploads func() []map[string]any, within, every time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		pending := 0
		for _, up := range uploads() {
			if up["status"] == "Processing" {
				pending++
			}
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d uploads still Processing after %v", pending, within)
		}
		time.Sleep(every)
	}
}

// operatorRun runs an earshot command from the operator's directory and
// returns its output.
func operatorRun(t *testing.T, dir string, common []string, args ...string) string {
	t.Helper()
	cmd := child(t, nil, append(append(args, "--data", dir), common...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("earshot %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// leases are the uploads a process holds a lease on.
func leases(t *testing.T, db *sql.DB, p *peer) []string {
	t.Helper()
	rows, err := db.Query(`SELECT id FROM interactions WHERE lease_owner = $1`, p.owner())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	return ids
}

// processedBy counts the conversations in the lake by the process whose
// ingest run wrote them.
func processedBy(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.Query(`SELECT r.owner, count(*) FROM interactions i JOIN job_runs r ON r.id = i.lake_run_id
		WHERE i.media_type = 'ProcessedChat' GROUP BY r.owner`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var owner string
		var n int
		rows.Scan(&owner, &n)
		out[owner] = n
	}
	return out
}
