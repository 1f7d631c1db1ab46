package api

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/jobs"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// runIngest runs the real ingest job, with the organizations' classifiers,
// over the environment's pending uploads.
func (e *testEnv) runIngest(t testing.TB) catalog.JobRun {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	runner := jobs.NewRunner(e.cat.Jobs, "api-test", log, nil)
	runner.Register("ingest", &jobs.Ingest{
		Uploads: e.cat.Interactions, Lake: &lake.Writer{Bucket: e.bucket}, Open: e.bucket.Get,
		Processors: []pipeline.Processor{pipeline.Chats{Limits: archive.DefaultLimits}}, Queues: []jobs.Queue{{MediaTypes: []string{catalog.MediaChat}, BatchSize: 100}},
		Owner: "api-test", Workers: 2, Lease: time.Minute, Log: log,
		Analyzer:  &pipeline.Analyzer{Classifiers: e.cat.Classifiers, Hierarchy: e.cat.People, Privacy: e.cat.Settings, Log: log},
		AutoScore: &qa.AutoScorer{Store: e.cat.Evaluations},
	})
	run, err := runner.Run(context.Background(), "ingest")
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestTranscripts(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	conv := `{"messages":[{"participant":"Agent","text":"Thanks for calling Acme.","timestamp":"2025-10-03T10:00:00Z"},` +
		`{"participant":"Customer","text":"I was charged twice.","timestamp":"2025-10-03T10:00:03.2Z"},` +
		`{"participant":"Bot","text":"Transferring you.","timestamp":"2025-10-03T10:01:05Z"}]}`
	single := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("LocaleId", 2058), file("c.json", conv)), 200).json(t)["id"].(string)

	// Before the job: still processing.
	r := mustStatus(t, e.jsonReq("GET", "/Conversations/Transcriptions/"+single, tok, nil), 200)
	if b := r.json(t); b["status"] != "Processing" || b["transcriptions"] != nil {
		t.Fatalf("processing: %s", r.Body)
	}
	golden(t, "transcript_processing", r.Body.Bytes())

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, body := range map[string]string{"a/1.json": conv, "a/empty.json": `{"messages":[]}`} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	archiveID := mustStatus(t, e.upload("/Media/Upload", tok, meta("FileName", "day.tar", "UploadType", "Chat"), file("day.tar", buf.String())), 200).json(t)["id"].(string)

	run := e.runIngest(t)
	if run.Counts["conversations"] != 2 || run.Counts["conversations_failed"] != 1 {
		t.Fatalf("ingest run %+v", run)
	}

	r = mustStatus(t, e.jsonReq("GET", "/Conversations/Transcriptions/"+single, tok, nil), 200)
	golden(t, "transcript", r.Body.Bytes())
	if !strings.Contains(r.Body.String(), `"00:00:03 Customer: I was charged twice."`) || !strings.Contains(r.Body.String(), `"00:01:05 Speaker: Transferring you."`) ||
		!strings.Contains(r.Body.String(), `"languageCode":"es"`) {
		t.Fatalf("transcript %s", r.Body)
	}
	r = mustStatus(t, e.jsonReq("GET", "/conversations/transcriptions/"+single+"?Detail=words", tok, nil), 200)
	golden(t, "transcript_words", r.Body.Bytes())

	var chatID, emptyID string
	items, _ := e.cat.Interactions.Interactions(context.Background(), e.org.ID, catalog.InteractionFilter{IDs: []string{archiveID}, Limit: 10})
	for _, it := range items[1:] {
		if strings.HasSuffix(it.FileName, "empty.json") {
			emptyID = it.ID
		} else {
			chatID = it.ID
		}
	}
	if r := e.jsonReq("GET", "/Conversations/Transcriptions/"+emptyID, tok, nil); r.Code != 400 || !strings.Contains(r.json(t)["detail"].(string), "no messages") {
		t.Fatalf("failed chat: %d %s", r.Code, r.Body)
	}
	if r := e.jsonReq("GET", "/Conversations/Transcriptions/"+archiveID, tok, nil); r.Code != 400 || !strings.Contains(r.json(t)["detail"].(string), "archive") {
		t.Fatalf("archive id: %d %s", r.Code, r.Body)
	}
	if r := e.jsonReq("GET", "/Conversations/Transcriptions/"+uuid.NewString(), tok, nil); r.Code != 404 {
		t.Fatalf("unknown: %d", r.Code)
	}
	if r := e.jsonReq("GET", "/Conversations/Transcriptions/x", tok, nil); r.Code != 400 {
		t.Fatalf("not a GUID: %d", r.Code)
	}

	r = mustStatus(t, e.jsonReq("POST", "/Conversations/Transcriptions", tok, map[string]any{
		"conversationIds": []string{single, chatID, emptyID, uuid.NewString(), "nope"}}), 200)
	b := r.json(t)
	if len(b["transcriptions"].([]any)) != 2 || len(b["errors"].([]any)) != 3 {
		t.Fatalf("batch: %s", r.Body)
	}
	var many []string
	for range 101 {
		many = append(many, uuid.NewString())
	}
	if r := e.jsonReq("POST", "/Conversations/Transcriptions", tok, map[string]any{"conversationIds": many}); r.Code != 400 {
		t.Fatalf("101 ids: %d", r.Code)
	}
	// Duplicates are ignored (the vendor's document), and not counted
	// toward the 100.
	repeated := append(many[:98:98], single, strings.ToUpper(single), single, chatID)
	r = mustStatus(t, e.jsonReq("POST", "/Conversations/Transcriptions", tok, map[string]any{"conversationIds": repeated}), 200)
	b = r.json(t)
	if len(b["transcriptions"].([]any)) != 2 || len(b["errors"].([]any)) != 98 {
		t.Fatalf("repeated ids: %d transcriptions, %d errors", len(b["transcriptions"].([]any)), len(b["errors"].([]any)))
	}

	// Another organization's conversation is unknown to it.
	other, _ := e.cat.Orgs.CreateOrganization(context.Background(), "globex")
	otherTok, _ := e.tokens.IssueForOperator(other.ID, "acxapi")
	foreign := e.jsonReq("GET", "/Conversations/Transcriptions/"+single, otherTok, nil)
	unknownID := uuid.NewString()
	unknown := e.jsonReq("GET", "/Conversations/Transcriptions/"+unknownID, otherTok, nil)
	if foreign.Code != 404 || traceID.ReplaceAllString(foreign.Body.String(), "") != traceID.ReplaceAllString(unknown.Body.String(), "") {
		t.Fatalf("foreign transcript: %d %s", foreign.Code, foreign.Body)
	}
}
