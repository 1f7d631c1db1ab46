package jobs

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/contract/uploadmeta"
	"github.com/earshot/earshot/internal/testlake"

	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakedb"
	"github.com/earshot/earshot/warehouse/results"
)

type env struct {
	cat    *catalog.Catalog
	sql    *sql.DB // the catalog file, opened directly
	reader *results.Reader
	lake   *lakedb.DB
	bucket *blob.Local
	// bucketDir is the local bucket's directory.
	bucketDir string
	org       catalog.Organization
	runner    *Runner
}

// newEnv is a catalog, a lake and a runner with the jobs registered;
// edits change the ingest job before it is registered.
func newEnv(t testing.TB, edits ...func(*Ingest)) *env {
	t.Helper()
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	engine := testlake.Engine(t, filepath.Join(dir, "bucket"))
	reader := &results.Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: engine, Figures: cat.Manifest}
	org, _ := cat.Orgs.CreateOrganization(ctx, "acme")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	runner := NewRunner(cat.Jobs, "test-worker", log, nil)
	autoScore := &qa.AutoScorer{Store: cat.Evaluations}
	ingest := &Ingest{
		Uploads: cat.Interactions, Lake: &lake.Writer{Bucket: bucket}, Open: bucket.Get, Originals: &StagedOriginals{Catalog: cat.Interactions, Bucket: bucket},
		Processors: []pipeline.Processor{pipeline.Chats{Limits: archive.DefaultLimits, Directory: cat.People, Earlier: cat.Interactions},
			pipeline.Calls{Recognizers: &pipeline.Recognizers{Engine: sphinx.Engine{}}, Settings: cat.Settings}},
		Analyzer:   &pipeline.Analyzer{Classifiers: cat.Classifiers, Hierarchy: cat.People, Privacy: cat.Settings, Log: log},
		AutoScore:  autoScore,
		Recordings: pipeline.Recordings{Open: bucket.Get, Store: bucket, Privacy: cat.Settings},
		Queues:     []Queue{{MediaTypes: []string{catalog.MediaChat}, BatchSize: 2}, {MediaTypes: []string{catalog.MediaAudio}, BatchSize: 2}},
		Owner:      "test-worker", Workers: 2, Lease: time.Minute, Figures: reader, Log: log,
	}
	for _, edit := range edits {
		edit(ingest)
	}
	runner.Register("ingest", ingest)
	runner.Register("compact", &Compact{Manifest: cat.Manifest, Runs: cat.Interactions, Partitions: engine, Lake: &lake.Writer{Bucket: bucket}, Bucket: bucket, Figures: reader, Log: log})
	runner.Register("reclassify", &Reclassify{Classifiers: cat.Classifiers, Hierarchy: cat.People, Interactions: cat.Interactions, Manifest: cat.Manifest, Transcripts: reader, Lake: &lake.Writer{Bucket: bucket}, Figures: reader, Log: log, Page: 1,
		AutoScore: autoScore})
	return &env{cat: cat, sql: testlake.CatalogSQL(t, filepath.Join(dir, testlake.CatalogFile)), reader: reader, lake: engine, bucket: bucket,
		bucketDir: filepath.Join(dir, "bucket"), org: org, runner: runner}
}

// stage stores a file and records it as a pending Chat upload.
func (e *env) stage(t testing.TB, fileName string, data []byte) string {
	t.Helper()
	return e.stageAs(t, catalog.MediaChat, fileName, data, nil)
}

// stageAs stores a file and records it as a pending upload of a media
// type; edit adjusts the record.
func (e *env) stageAs(t testing.TB, mediaType, fileName string, data []byte, edit func(*catalog.Interaction)) string {
	t.Helper()
	ctx := context.Background()
	id := catalog.NewID()
	now := time.Now().UTC()
	key := catalog.StagedKey(e.org.ID, now, id, fileName)
	if _, err := e.bucket.Put(ctx, key, bytes.NewReader(data), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	it := catalog.Interaction{ID: id, OrgID: e.org.ID, MediaType: mediaType, Status: catalog.StatusProcessing,
		FileName: fileName, StagedKey: &key, FileSizeBytes: int64(len(data)), ArrivedOn: now, LocaleID: 1033,
		ExtendedMetadata: map[string]string{"queue": "billing"}, Source: "file", ModifiedOn: now}
	if edit != nil {
		edit(&it)
	}
	if err := e.cat.Interactions.CreateInteraction(ctx, it, false); err != nil {
		t.Fatal(err)
	}
	return id
}

func tarOf(t *testing.T, files map[string]string, symlink string) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, name := range sortedNames(files) {
		w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		w.Write([]byte(files[name]))
	}
	if symlink != "" {
		w.WriteHeader(&tar.Header{Name: symlink, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})
	}
	w.Close()
	return buf.Bytes()
}

func zipOf(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range sortedNames(files) {
		fw, _ := w.Create(name)
		fw.Write([]byte(files[name]))
	}
	w.Close()
	return buf.Bytes()
}

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

const (
	earshotChat = `{"messages":[{"participant":"Agent","text":"Thanks for calling.","timestamp":"2025-10-03T10:00:00Z"},{"participant":"Customer","text":"My card was declined.","timestamp":"2025-10-03T10:00:04.5Z"}]}`
	ccaiChat    = `{"entries":[{"text":"Hello","role":"AGENT","user_id":1,"start_timestamp_usec":1759528346000000},{"text":"Hi, I need help","role":"END_USER","user_id":2,"start_timestamp_usec":1759528349000000}]}`
	textChat    = "[00:00:01] Agent: Good morning\n[00:00:05] Customer: I want to cancel"
)

func TestIngestChats(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tarID := e.stage(t, "batch/a.tar", tarOf(t, map[string]string{
		"chats/1.json": earshotChat, "chats/2.json": ccaiChat, "chats/3.txt": textChat, "chats/bad.json": `{"messages":[]}`,
	}, "chats/evil-link"))
	zipID := e.stage(t, "batch/b.zip", zipOf(t, map[string]string{"x/1.json": earshotChat, "../escape.json": earshotChat}))
	singleID := e.stage(t, "single.json", []byte(ccaiChat))
	brokenID := e.stage(t, "broken.zip", []byte("PK\x03\x04 not really a zip"))
	badSingleID := e.stage(t, "bad.json", []byte(`{"turns":[]}`))

	run, err := e.runner.Run(ctx, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "succeeded" || run.Counts["uploads"] != 5 || run.Counts["uploads_failed"] != 2 ||
		run.Counts["conversations"] != 5 || run.Counts["conversations_failed"] != 1 {
		t.Fatalf("run %+v", run)
	}

	get := func(id string) catalog.Interaction {
		it, err := e.cat.Interactions.Interaction(ctx, e.org.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	if it := get(tarID); it.Status != "ReadyToSample" || len(it.ProcessFailures) != 1 || !strings.Contains(it.ProcessFailures[0].Message, "symbolic link") {
		t.Fatalf("tar archive: %s %+v", it.Status, it.ProcessFailures)
	}
	if it := get(zipID); it.Status != "ReadyToSample" || len(it.ProcessFailures) != 1 || !strings.Contains(it.ProcessFailures[0].Message, "escapes") {
		t.Fatalf("zip archive: %s %+v", it.Status, it.ProcessFailures)
	}
	if it := get(brokenID); it.Status != "FailedToProcess" || !strings.Contains(it.ProcessFailures[0].Message, "archive cannot be processed") {
		t.Fatalf("broken archive: %s %+v", it.Status, it.ProcessFailures)
	}
	if it := get(badSingleID); it.Status != "FailedToProcess" || !strings.Contains(it.ProcessFailures[0].Message, "messages") {
		t.Fatalf("bad single: %s %+v", it.Status, it.ProcessFailures)
	}
	if it := get(singleID); it.Status != "ReadyToSample" || *it.ChatMessageCount != 2 {
		t.Fatalf("single: %+v", it)
	}

	children, _ := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{IDs: []string{tarID}, Limit: 100})
	byName := map[string]catalog.Interaction{}
	for _, c := range children[1:] {
		byName[c.FileName] = c
	}
	if len(byName) != 4 {
		t.Fatalf("tar chats: %d", len(byName))
	}
	bad := byName["batch/a.tar/chats/bad.json"]
	if bad.Status != "FailedToProcess" || !strings.Contains(bad.ProcessFailures[0].Message, "no messages") || *bad.UploadID != tarID {
		t.Fatalf("bad chat: %+v", bad)
	}
	first := byName["batch/a.tar/chats/1.json"]
	if first.MediaType != "ProcessedChat" || first.ExtendedMetadata["queue"] != "billing" || first.InteractionDate == nil {
		t.Fatalf("chat record: %+v", first)
	}

	// Transcripts read back from the lake, turn by turn.
	segs, err := e.reader.Transcript(ctx, e.org.ID, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 || segs[0].Speaker != "Agent" || segs[1].Text != "My card was declined." || segs[1].StartMs != 4500 || segs[0].EndMs != 4500 {
		t.Fatalf("segments %+v", segs)
	}
	text := byName["batch/a.tar/chats/3.txt"]
	segs, _ = e.reader.Transcript(ctx, e.org.ID, text)
	if len(segs) != 2 || segs[1].StartMs != 5000 || segs[1].Speaker != "Customer" {
		t.Fatalf("text segments %+v", segs)
	}
	if _, err := e.reader.Transcript(ctx, e.org.ID, bad); err == nil {
		t.Fatal("a failed chat has a transcript")
	}

	// Re-running an archive replaces its chats and their rows, never doubles them.
	if _, err := e.sql.ExecContext(ctx, `UPDATE interactions SET status = 'Processing' WHERE id = ?`, tarID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	again, _ := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{IDs: []string{tarID}, Limit: 100})
	if len(again) != 5 {
		t.Fatalf("after a re-run the archive has %d records", len(again))
	}
	var rows int
	e.sql.QueryRowContext(ctx, `SELECT count(*) FROM interactions WHERE org_id = ? AND media_type = 'ProcessedChat'`, e.org.ID).Scan(&rows)
	if rows != 5 {
		t.Fatalf("%d chat records after the re-run, want 5", rows)
	}
	for _, c := range again[1:] {
		if c.Status == "ReadyToSample" {
			if segs, err := e.reader.Transcript(ctx, e.org.ID, c); err != nil || len(segs) != 2 {
				t.Fatalf("after re-run, %s: %d segments, %v", c.FileName, len(segs), err)
			}
		}
	}
	runs, _ := e.cat.Jobs.JobRuns(ctx, "ingest", 10)
	if len(runs) != 2 || runs[0].Status != "succeeded" {
		t.Fatalf("job runs %+v", runs)
	}
}

// A chat's own metadata (Earshot JSON "metadata") lays over its archive's.
func TestIngestChatMetadata(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	withMeta := `{"messages":[{"participant":"Agent","text":"hi"}],"metadata":{"ClientCallId":"chat-9","CallDirection":"outbound","TimeStamp":"2025-10-03T08:00:00Z","ExtendedMetadataValues":{"tier":"gold"}}}`
	badMeta := `{"messages":[{"participant":"Agent","text":"hi"}],"metadata":{"LocaleId":1036}}`
	node, err := e.cat.People.CreateNode(ctx, e.org.ID, catalog.NodeInput{Name: ptr("Billing"), Code: ptr("BILL")})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := e.cat.People.CreateAgent(ctx, e.org.ID, catalog.AgentInput{FirstName: ptr("Ann"), LastName: ptr("Lee"), AgentCode: ptr("A-7")})
	if err != nil {
		t.Fatal(err)
	}
	withNode := `{"messages":[{"participant":"Agent","text":"hi"}],"metadata":{"HierarchyCode":"bill","AgentCode":"a-7"}}`
	unknownNode := `{"messages":[{"participant":"Agent","text":"hi"}],"metadata":{"HierarchyCode":"nowhere"}}`
	archiveID := e.stage(t, "meta.tar", tarOf(t, map[string]string{"a.json": withMeta, "b.json": badMeta, "c.json": earshotChat,
		"d.json": withNode, "e.json": unknownNode}, ""))
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	list, _ := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{IDs: []string{archiveID}, Limit: 10})
	byName := map[string]catalog.Interaction{}
	for _, it := range list[1:] {
		byName[it.FileName] = it
	}
	a := byName["meta.tar/a.json"]
	if a.Status != "ReadyToSample" || *a.ClientCallID != "chat-9" || *a.CallDirection != "Outbound" ||
		a.InteractionDate.Format(time.RFC3339) != "2025-10-03T08:00:00Z" || a.ExtendedMetadata["tier"] != "gold" ||
		a.ExtendedMetadata["queue"] != "billing" || a.LocaleID != 1033 {
		t.Fatalf("chat with metadata: %+v", a)
	}
	b := byName["meta.tar/b.json"]
	if b.Status != "FailedToProcess" || !strings.Contains(b.ProcessFailures[0].Message, "locale") {
		t.Fatalf("chat with bad metadata: %s %+v", b.Status, b.ProcessFailures)
	}
	if c := byName["meta.tar/c.json"]; c.ClientCallID != nil || c.Status != "ReadyToSample" {
		t.Fatalf("chat without metadata: %+v", c)
	}
	// Hierarchy keys and agent codes resolve as the upload API resolves them.
	if d := byName["meta.tar/d.json"]; d.Status != "ReadyToSample" || d.HierarchyNodeID == nil || *d.HierarchyNodeID != node.ID ||
		d.AgentID == nil || *d.AgentID != agent.ID {
		t.Fatalf("chat naming a node and an agent: %+v", d)
	}
	if u := byName["meta.tar/e.json"]; u.Status != "FailedToProcess" || !strings.Contains(u.ProcessFailures[0].Message, uploadmeta.SentenceHierarchy) {
		t.Fatalf("chat naming an unknown node: %s %+v", u.Status, u.ProcessFailures)
	}
}

func ptr[T any](v T) *T { return &v }
