package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets tests run this binary as the earshot command in a child
// process (EARSHOT_TEST_RUN_MAIN=1), for crash tests that kill it.
func TestMain(m *testing.M) {
	if os.Getenv("EARSHOT_TEST_RUN_MAIN") == "1" {
		Main(HandOvers...)
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
	for _, want := range []string{`earshot_job_runs_total{job="ingest",status="succeeded"} 1`, `earshot_job_items_total{counter="conversations",job="ingest"} 3`, `earshot_queue_depth 0`,
		"go_cpu_classes_gc_total_cpu_seconds_total ", "go_cpu_classes_gc_mark_idle_cpu_seconds_total "} { // what earshot bench ingest reads
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
