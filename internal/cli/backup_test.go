package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/backup"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// A backup taken while the server ingests and compacts, for real:
// between every pair of the backup's steps another archive of the same
// day is ingested and compaction runs (it merges the files the snapshot
// names into new ones). The backup, restored into a new data directory,
// serves every page with 200 and the counts of its snapshot; compaction
// works on it.
func TestBackupDuringCompactionRestoresWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	srv := &crashServer{t: t, data: data, args: []string{"--schedule-compact", "off"}}
	srv.start()
	runChild(t, "admin", "classifiers", "import", "default", "--starter", "--data", data)
	for i := range 2 {
		if err := uploadChats(srv.addr, srv.bearer, fmt.Sprintf("before%d.tar", i), longChatTar(10, 4, fmt.Sprintf("b%d", i))); err != nil {
			t.Fatal(err)
		}
		srv.waitIngested()
	}
	atSnapshot := len(srv.list("ProcessedChat"))

	bucket, err := blob.OpenLocal(filepath.Join(data, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	round := 0
	compactBetween := func(step string) {
		round++
		if err := uploadChats(srv.addr, srv.bearer, fmt.Sprintf("during%d.tar", round), longChatTar(10, 4, fmt.Sprintf("d%d", round))); err != nil {
			t.Fatal(err)
		}
		srv.waitIngested()
		out := runChild(t, "jobs", "run", "compact", "--data", data)
		if !strings.Contains(out, `"status": "succeeded"`) || strings.Contains(out, `"files_retired": 0`) {
			t.Fatalf("compaction after the backup's %s step: %s", step, out)
		}
	}
	dir := filepath.Join(t.TempDir(), "backup")
	m, err := backup.Take(ctx, backup.Source{Catalog: catalog.SchemePrefix + filepath.Join(data, "catalog.db"), Bucket: bucket,
		Credentials: filepath.Join(data, "credentials.json"), Version: "test", AfterStep: compactBetween}, dir)
	if err != nil {
		t.Fatalf("a backup with compaction between its steps: %v", err)
	}
	if round != 4 || !m.Credentials || m.Objects == 0 {
		t.Fatalf("the backup: %+v after %d rounds of compaction", m, round)
	}
	srv.stop(syscall.SIGTERM)

	restored := t.TempDir()
	out := runChild(t, "admin", "restore", dir, "--data", restored)
	if !strings.Contains(out, `"objects"`) {
		t.Fatalf("restore: %s", out)
	}
	if again, err := runChildErr(t, "admin", "restore", dir, "--data", restored); err == nil {
		t.Fatalf("a second restore into the same catalog was taken: %s", again)
	}
	// Its own schedule stays off: the compaction run by hand below would
	// otherwise meet a scheduled one and be refused as already running.
	back := &crashServer{t: t, data: restored, args: []string{"--schedule-compact", "off"}}
	back.start()
	defer back.stop(syscall.SIGTERM)
	chats := back.list("ProcessedChat")
	if len(chats) != atSnapshot {
		t.Errorf("the restored server lists %d chats, the snapshot had %d", len(chats), atSnapshot)
	}
	id := chats[0]["id"].(string)
	today, weekAgo := time.Now().UTC().Format(time.DateOnly), time.Now().UTC().AddDate(0, 0, -6).Format(time.DateOnly)
	var models []string
	for _, c := range back.get("/Conversations/Classifiers?PageSize=1000") {
		models = append(models, c["id"].(string))
	}
	if len(models) == 0 {
		t.Fatal("the restored organization has no classifiers")
	}
	for _, page := range []string{"/Metadata?PageSize=1000",
		"/ModelResults?startDate=" + weekAgo + "&endDate=" + today + "&pageSize=1000&modelIds=" + strings.Join(models, ","),
		"/Conversations/Insights?StartDate=" + weekAgo + "&EndDate=" + today + "&PageSize=1000", "/Conversations/Transcriptions/" + id} {
		req, _ := http.NewRequest("GET", "http://"+back.addr+page, nil)
		req.Header.Set("Authorization", back.bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s on the restored server: %d", page, resp.StatusCode)
		}
	}
	var rows []map[string]any
	json.Unmarshal([]byte(runChild(t, "sql", "--data", restored, "--format", "json", "SELECT count(*) AS n FROM conversations")), &rows)
	if len(rows) != 1 || fmt.Sprint(rows[0]["n"]) != fmt.Sprint(atSnapshot) {
		t.Errorf("earshot sql on the restored lake: %v, want %d conversations", rows, atSnapshot)
	}
	if out := runChild(t, "jobs", "run", "compact", "--data", restored); !strings.Contains(out, `"status": "succeeded"`) {
		t.Errorf("compaction on the restored installation: %s", out)
	}
}

// get is a page of a list operation.
func (s *crashServer) get(target string) []map[string]any {
	s.t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.addr+target, nil)
	req.Header.Set("Authorization", s.bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET %s: %s %v", target, resp.Status, err)
	}
	return list
}

// runChild runs an earshot command and returns its output, failing the
// test when it fails.
func runChild(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runChildErr(t, args...)
	if err != nil {
		t.Fatalf("earshot %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func runChildErr(t *testing.T, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := child(t, nil, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
