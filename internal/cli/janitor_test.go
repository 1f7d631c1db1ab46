package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// What a killed server leaves on disk is reclaimed, for real: serve is
// killed while an upload streams in (its partial temporary file stays),
// a staged upload with no record is left beside it (a kill between the
// staging and the record), and once both are an hour old the janitor
// removes them and nothing else; the server starts again on the data.
func TestJanitorReclaimsWhatAKillLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	t.Parallel()
	data := t.TempDir()
	srv := &crashServer{t: t, data: data}
	srv.start()
	if err := uploadChats(srv.addr, srv.bearer, "kept.tar", longChatTar(5, 4, "kept")); err != nil {
		t.Fatal(err)
	}
	srv.waitIngested()

	// An upload that streams in, cut by a kill.
	body, feed := io.Pipe()
	mw := multipart.NewWriter(feed)
	req, _ := http.NewRequest("POST", "http://"+srv.addr+"/Media/Upload", body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", srv.bearer)
	sent := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		sent <- err
	}()
	meta, _ := mw.CreateFormField("metadata")
	meta.Write([]byte(`{"FileName":"cut.tar","UploadType":"Chat"}`))
	file, _ := mw.CreateFormFile("file", "cut.tar")
	file.Write(bytes.Repeat([]byte("x"), 4<<20))
	tmp := filepath.Join(data, "bucket", ".tmp")
	for partial(t, tmp) == 0 {
		file.Write(bytes.Repeat([]byte("x"), 64<<10))
	}
	srv.stop(syscall.SIGKILL)
	feed.Close()
	<-sent
	leftover := partial(t, tmp)
	if leftover == 0 {
		t.Fatal("the kill left no partial upload in .tmp")
	}
	orphan := filepath.Join(data, "bucket", filepath.FromSlash(catalog.StagedKey("org", time.Now(), catalog.NewID(), "orphan.tar")))
	os.MkdirAll(filepath.Dir(orphan), 0o700)
	if err := os.WriteFile(orphan, []byte("a staged upload no record names"), 0o600); err != nil {
		t.Fatal(err)
	}
	// An hour passes.
	hourAgo := time.Now().Add(-2 * time.Hour)
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		os.Chtimes(filepath.Join(tmp, e.Name()), hourAgo, hourAgo)
	}
	os.Chtimes(orphan, hourAgo, hourAgo)

	var out bytes.Buffer
	cmd := child(t, nil, "jobs", "run", "janitor", "--data", data)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("earshot jobs run janitor: %v\n%s", err, out.String())
	}
	var run struct {
		Status string
		Counts map[string]int64
	}
	json.Unmarshal(out.Bytes(), &run)
	if run.Status != "succeeded" || run.Counts["temp_bytes_removed"] != leftover || run.Counts["staged_orphans_removed"] != 1 {
		t.Errorf("the janitor's run: %s (%d bytes were left in .tmp)", out.String(), leftover)
	}
	if n := partial(t, tmp); n != 0 {
		t.Errorf("%d bytes still in .tmp", n)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("the orphan staged upload is still there")
	}
	srv.start()
	if chats := srv.list("ProcessedChat"); len(chats) != 5 {
		t.Errorf("after the janitor the API lists %d chats, want 5", len(chats))
	}
	srv.stop(syscall.SIGTERM)
}

// partial is how many bytes the bucket's temporary files hold.
func partial(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}
