package pipeline

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/warehouse/catalog"
)

func upload(name string) catalog.Interaction {
	key := "staging/o/" + name
	return catalog.Interaction{ID: catalog.NewID(), OrgID: "o", MediaType: catalog.MediaChat, Status: catalog.StatusProcessing,
		FileName: name, StagedKey: &key, ArrivedOn: time.Now().UTC(), LocaleID: 1033, ExtendedMetadata: map[string]string{}}
}

func opener(data []byte) Opener {
	return func(context.Context, string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// A tar of 100,000 empty entries: the service reads it under its limits,
// each entry fails alone with a clear reason, and no lake row is produced.
func TestArchiveOfEmptyEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 100k-entry archive")
	}
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	const n = 100_000
	for i := range n {
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("e/%06d.json", i), Mode: 0o644, Typeflag: tar.TypeReg})
	}
	w.Close()
	res, err := Chats{Limits: archive.DefaultLimits}.Process(context.Background(), upload("empty.tar"), "run", opener(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outcome.Children) != n || len(res.Batch.Conversations) != 0 || res.Outcome.Status != catalog.StatusReadyToSample {
		t.Fatalf("%d children, %d conversations, status %s", len(res.Outcome.Children), len(res.Batch.Conversations), res.Outcome.Status)
	}
	for _, c := range res.Outcome.Children[:10] {
		if c.Status != catalog.StatusFailedToProcess || !strings.Contains(c.ProcessFailures[0].Message, "empty") {
			t.Fatalf("child %+v", c)
		}
	}
	// Past the entry limit the archive fails as a whole.
	_, err = Chats{Limits: archive.Limits{MaxEntries: n - 1, MaxEntryBytes: 1 << 20, MaxTotalBytes: 1 << 30}}.
		Process(context.Background(), upload("empty.tar"), "run", opener(buf.Bytes()))
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("over the entry limit: %v", err)
	}
}

func TestSingleChat(t *testing.T) {
	res, err := Chats{}.Process(context.Background(), upload("one.json"), "run",
		opener([]byte(`{"messages":[{"participant":"Agent","text":"a","timestamp":"2025-10-03T10:00:00Z"},{"participant":"Customer","text":"b","timestamp":"2025-10-03T10:00:02Z"}]}`)))
	if err != nil || !res.Outcome.Conversation || *res.Outcome.ChatMessageCount != 2 || len(res.Batch.Segments) != 2 {
		t.Fatalf("%+v %v", res.Outcome, err)
	}
	if s := res.Batch.Segments; s[0].EndMs != 2000 || s[1].StartMs != 2000 {
		t.Fatalf("timings %+v", s)
	}
	if _, err := (Chats{}).Process(context.Background(), upload("bad.json"), "run", opener([]byte(`{}`))); err == nil {
		t.Fatal("an unreadable chat was accepted")
	}
}
