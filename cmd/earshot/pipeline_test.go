package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// TestMain lets tests run this binary as the earshot command in a child
// process (EARSHOT_TEST_RUN_MAIN=1), for crash tests that kill it.
func TestMain(m *testing.M) {
	if os.Getenv("EARSHOT_TEST_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func chatTar(t *testing.T, n int, prefix string) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i := range n {
		body := fmt.Sprintf(`{"messages":[{"participant":"Agent","text":"Hello %s %d"},{"participant":"Customer","text":"Hi"}]}`, prefix, i)
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("%s/%04d.json", prefix, i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		w.Write([]byte(body))
	}
	w.Close()
	return buf.Bytes()
}

// stageArchives records pending chat archives straight in a data
// directory's catalog and bucket, as the upload API would.
func stageArchives(t *testing.T, data string, archives, chatsEach int) {
	ctx := context.Background()
	cat, err := catalog.Open(ctx, filepath.Join(data, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	bucket, _ := blob.OpenLocal(filepath.Join(data, "bucket"))
	org, _ := cat.CreateOrganization(ctx, "default")
	for a := range archives {
		id := catalog.NewID()
		key := fmt.Sprintf("staging/%s/%s/a%d.tar", org.ID, id, a)
		bucket.Put(ctx, key, bytes.NewReader(chatTar(t, chatsEach, fmt.Sprint("a", a))), blob.PutOptions{})
		now := time.Now().UTC()
		if err := cat.CreateInteraction(ctx, catalog.Interaction{ID: id, OrgID: org.ID, MediaType: "Chat", Status: "Processing",
			FileName: fmt.Sprintf("a%d.tar", a), StagedKey: &key, ArrivedOn: now, LocaleID: 1033, Source: "file", ModifiedOn: now}, false); err != nil {
			t.Fatal(err)
		}
	}
}

// child runs earshot in a child process.
func child(t *testing.T, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "EARSHOT_TEST_RUN_MAIN=1"), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("child %v output:\n%s", args, out.String())
		}
	})
	return cmd
}

// A process killed (SIGKILL) in the middle of an ingest run — after it wrote
// Parquet files, before it committed — leaves nothing visible; after a
// restart the job completes and every conversation appears exactly once in
// the catalog and in the lake.
func TestIngestSurvivesSIGKILL(t *testing.T) {
	for _, point := range []string{"ingest-before-commit", "ingest-after-commit"} {
		t.Run(point, func(t *testing.T) {
			data := t.TempDir()
			const archives, chats = 3, 40
			stageArchives(t, data, archives, chats)
			marker := filepath.Join(t.TempDir(), "reached")
			crash := child(t, []string{jobs.FailpointEnv + "=" + point, jobs.FailpointMarkerEnv + "=" + marker},
				"jobs", "run", "ingest", "--data", data, "--ingest-lease", "1s", "--ingest-batch", "2")
			if err := crash.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				if time.Now().After(deadline) {
					crash.Process.Kill()
					t.Fatal("the failpoint was never reached")
				}
				time.Sleep(20 * time.Millisecond)
			}
			crash.Process.Signal(syscall.SIGKILL)
			crash.Wait()
			time.Sleep(1100 * time.Millisecond) // the killed worker's leases expire

			if err := child(t, nil, "jobs", "run", "ingest", "--data", data).Run(); err != nil {
				t.Fatalf("restarted run: %v", err)
			}
			db := testlake.CatalogSQL(t, filepath.Join(data, "catalog.db"))
			var records, distinctNames, pending int
			db.QueryRow(`SELECT count(*), count(DISTINCT file_name) FROM interactions WHERE media_type = 'ProcessedChat'`).Scan(&records, &distinctNames)
			db.QueryRow(`SELECT count(*) FROM interactions WHERE status = 'Processing'`).Scan(&pending)
			if records != archives*chats || distinctNames != records || pending != 0 {
				t.Fatalf("catalog: %d chat records (%d names), %d pending; want %d", records, distinctNames, pending, archives*chats)
			}
			// The lake as a reader sees it: manifest files only, current runs only.
			rows, _ := db.Query(`SELECT path FROM lake_files WHERE table_name = 'conversations'`)
			var paths []string
			for rows.Next() {
				var p string
				rows.Scan(&p)
				paths = append(paths, "'"+filepath.Join(data, "bucket", p)+"'")
			}
			rows.Close()
			runs := map[string]string{}
			rows, _ = db.Query(`SELECT id, lake_run_id FROM interactions WHERE lake_run_id IS NOT NULL`)
			for rows.Next() {
				var id, run string
				rows.Scan(&id, &run)
				runs[id] = run
			}
			rows.Close()
			lakeRows, current, distinct := 0, 0, map[string]bool{}
			rows, err := testlake.Engine(t, data).SQL().Query(`SELECT conversation_id, run_id FROM read_parquet([` + strings.Join(paths, ",") + `])`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, run string
				rows.Scan(&id, &run)
				lakeRows++
				if runs[id] == run {
					current++
				}
				distinct[id] = true
			}
			rows.Close()
			if current != archives*chats || len(distinct) != archives*chats {
				t.Fatalf("lake: %d rows in manifest files, %d current, %d distinct; want %d", lakeRows, current, len(distinct), archives*chats)
			}
			if point == "ingest-before-commit" && lakeRows != archives*chats {
				t.Fatalf("uncommitted files reached the manifest: %d rows", lakeRows)
			}
		})
	}
}

// Upload through the running server's API, run the job through the admin
// socket (the CLI), read the transcript back through the API.
func TestServeUploadJobTranscript(t *testing.T) {
	data := t.TempDir()
	addr, stop := startServe(t, "--data", data, "--schedule-ingest", "off")
	defer stop()
	var creds map[string]string
	raw, _ := os.ReadFile(filepath.Join(data, "credentials.json"))
	json.Unmarshal(raw, &creds)
	bearer := "Bearer " + fetchToken(t, addr, creds["client_id"], creds["client_secret"])["access_token"].(string)

	var body bytes.Buffer
	mw := newMultipart(&body, `{"FileName":"day.tar","UploadType":"Chat"}`, "day.tar", chatTar(t, 3, "d"))
	req, _ := http.NewRequest("POST", "http://"+addr+"/Media/Upload", &body)
	req.Header.Set("Content-Type", mw)
	req.Header.Set("Authorization", bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("upload: %v %v", err, resp.Status)
	}
	resp.Body.Close()

	out, err := run(t, "jobs", "run", "ingest", "--data", data)
	if err != nil || !strings.Contains(out, `"status": "succeeded"`) || !strings.Contains(out, `"conversations": 3`) {
		t.Fatalf("jobs run: %v %s", err, out)
	}
	out, _ = run(t, "jobs", "list", "--data", data)
	if !strings.Contains(out, `"job": "ingest"`) {
		t.Fatalf("jobs list: %s", out)
	}

	req, _ = http.NewRequest("GET", "http://"+addr+"/Metadata?MediaType=ProcessedChat", nil)
	req.Header.Set("Authorization", bearer)
	resp, _ = http.DefaultClient.Do(req)
	var items []map[string]any
	json.NewDecoder(resp.Body).Decode(&items)
	resp.Body.Close()
	if len(items) != 3 {
		t.Fatalf("%d chats", len(items))
	}
	req, _ = http.NewRequest("GET", "http://"+addr+"/Conversations/Transcriptions/"+items[0]["id"].(string), nil)
	req.Header.Set("Authorization", bearer)
	resp, _ = http.DefaultClient.Do(req)
	var tr map[string]any
	json.NewDecoder(resp.Body).Decode(&tr)
	resp.Body.Close()
	lines := tr["transcriptions"].([]any)[0].(map[string]any)["transcription"].([]any)
	if len(lines) != 2 || lines[1] != "00:00:00 Customer: Hi" {
		t.Fatalf("transcript %v", tr)
	}
	resp, _ = http.Get("http://" + addr + "/metrics")
	var metrics bytes.Buffer
	metrics.ReadFrom(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`earshot_job_runs_total{job="ingest",status="succeeded"} 1`, `earshot_job_items_total{counter="conversations",job="ingest"} 3`, `earshot_queue_depth 0`} {
		if !strings.Contains(metrics.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func newMultipart(buf *bytes.Buffer, metadata, fileName string, content []byte) string {
	w := multipart.NewWriter(buf)
	f, _ := w.CreateFormField("metadata")
	f.Write([]byte(metadata))
	ff, _ := w.CreateFormFile("file", fileName)
	ff.Write(content)
	w.Close()
	return w.FormDataContentType()
}
