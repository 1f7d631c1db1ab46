package cli

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func zipWith(files map[string]string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range files {
		f, _ := w.Create(name)
		f.Write([]byte(body))
	}
	w.Close()
	return buf.Bytes()
}

type summary struct {
	Accepted, Processed, Failed, Pending, ChatsFailed int
	Rejected                                          []struct {
		Line             int
		FileName, Reason string
	}
	Outcomes []struct {
		FileName, Status string
		Chats            int
	}
}

func TestIngestCommand(t *testing.T) {
	for _, withServer := range []bool{false, true} {
		name := "without a server"
		if withServer {
			name = "through a running server"
		}
		t.Run(name, func(t *testing.T) {
			data := t.TempDir()
			var addr string
			if withServer {
				var stop func() error
				addr, stop = startServe(t, "--data", data, "--schedule-ingest", "off")
				defer stop()
			} else {
				// A first start makes the default organization.
				_, stop := startServe(t, "--data", data, "--schedule-ingest", "off")
				stop()
			}
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "chats/monday.tar"), chatTar(t, 25, "mon"))
			writeFile(t, filepath.Join(dir, "chats/tuesday.zip"), zipWith(map[string]string{
				"a.json": `{"messages":[{"participant":"Agent","text":"hi"}]}`, "broken.json": `{"messages":`}))
			writeFile(t, filepath.Join(dir, "single/c-1.json"), []byte(`{"entries":[{"text":"Hello","role":"AGENT"}]}`))
			writeFile(t, filepath.Join(dir, "calls/odd.wav"), []byte("RIFF"))
			writeFile(t, filepath.Join(dir, "manifest.csv"), []byte(strings.Join([]string{
				"FileName,UploadType,ClientCallId,ExtendedMetadataValues.queue",
				"chats/monday.tar,Chat,mon-1,billing",
				"chats/tuesday.zip,Chat,tue-1,",
				"single/c-1.json,,c-1,support",
				"../outside.tar,Chat,,",
				"calls/odd.wav,Video,,",
				"chats/missing.zip,Chat,,",
			}, "\n")))
			out, err := run(t, "ingest", dir, "--data", data, "--json")
			if err == nil || !strings.Contains(err.Error(), "3 rejected") {
				t.Fatalf("exit error %v (want 3 rejected)\n%s", err, out)
			}
			var s summary
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatalf("summary is not JSON: %v\n%s", err, out)
			}
			if s.Accepted != 3 || s.Processed != 3 || s.Failed != 0 || s.Pending != 0 || s.ChatsFailed != 1 || len(s.Rejected) != 3 {
				t.Fatalf("summary %+v\n%s", s, out)
			}
			reasons := ""
			for _, r := range s.Rejected {
				reasons += r.FileName + ": " + r.Reason + "\n"
			}
			for _, want := range []string{"must name a file inside the folder", "Unable to properly parse metadata", "cannot read the file"} {
				if !strings.Contains(reasons, want) {
					t.Errorf("rejections lack %q:\n%s", want, reasons)
				}
			}
			chats := 0
			for _, o := range s.Outcomes {
				chats += o.Chats
			}
			if chats != 27 {
				t.Fatalf("%d chats in archives, want 27", chats)
			}

			// A clean manifest exits 0, with a text summary.
			clean := t.TempDir()
			writeFile(t, filepath.Join(clean, "w.tar"), chatTar(t, 3, "wed"))
			writeFile(t, filepath.Join(clean, "manifest.jsonl"), []byte(`{"FileName":"w.tar","UploadType":"Chat","AgentCode":"A1"}`+"\n"))
			out, err = run(t, "ingest", clean, "--data", data)
			if err != nil || !strings.Contains(out, "accepted 1, rejected 0, processed 1, failed 0") || !strings.Contains(out, "chats found in archives: 3 (0 failed)") {
				t.Fatalf("clean load: %v\n%s", err, out)
			}
			// Run again, the load sends nothing twice and tells the truth.
			out, err = run(t, "ingest", clean, "--data", data)
			if err != nil || !strings.Contains(out, "accepted 1 (1 uploaded by an earlier load), rejected 0, processed 1, failed 0, pending 0") {
				t.Fatalf("the same load again: %v\n%s", err, out)
			}
			if !withServer {
				return
			}
			// A load interrupted after its uploads (they are still pending):
			// run again, it processes them.
			halted := t.TempDir()
			writeFile(t, filepath.Join(halted, "h.tar"), chatTar(t, 4, "thu"))
			writeFile(t, filepath.Join(halted, "manifest.jsonl"), []byte(`{"FileName":"h.tar","UploadType":"Chat"}`+"\n"))
			var creds map[string]string
			raw, _ := os.ReadFile(filepath.Join(data, "credentials.json"))
			json.Unmarshal(raw, &creds)
			var body bytes.Buffer
			ct := newMultipart(&body, `{"FileName":"h.tar","UploadType":"Chat"}`, "h.tar", chatTar(t, 4, "thu"))
			req, _ := http.NewRequest("POST", "http://"+addr+"/Media/Upload", &body)
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", "Bearer "+fetchToken(t, addr, creds["client_id"], creds["client_secret"])["access_token"].(string))
			if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
				t.Fatalf("upload: %v %v", err, resp.Status)
			}
			out, err = run(t, "ingest", halted, "--data", data)
			if err != nil || !strings.Contains(out, "accepted 1 (1 uploaded by an earlier load), rejected 0, processed 1, failed 0, pending 0") ||
				!strings.Contains(out, "chats found in archives: 4 (0 failed)") {
				t.Fatalf("an interrupted load run again: %v\n%s", err, out)
			}
		})
	}
}
