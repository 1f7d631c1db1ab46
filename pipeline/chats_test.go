package pipeline

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
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
	res, err := Chats{Limits: archive.DefaultLimits}.Process(context.Background(), upload("empty.tar"), "run", opener(buf.Bytes()), nil)
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
		Process(context.Background(), upload("empty.tar"), "run", opener(buf.Bytes()), nil)
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("over the entry limit: %v", err)
	}
}

func TestSingleChat(t *testing.T) {
	res, err := Chats{}.Process(context.Background(), upload("one.json"), "run",
		opener([]byte(`{"messages":[{"participant":"Agent","text":"a","timestamp":"2025-10-03T10:00:00Z"},{"participant":"Customer","text":"b","timestamp":"2025-10-03T10:00:02Z"}]}`)), nil)
	if err != nil || !res.Outcome.Conversation || *res.Outcome.ChatMessageCount != 2 || len(res.Batch.Segments) != 2 {
		t.Fatalf("%+v %v", res.Outcome, err)
	}
	if s := res.Batch.Segments; s[0].EndMs != 2000 || s[1].StartMs != 2000 {
		t.Fatalf("timings %+v", s)
	}
	if _, err := (Chats{}).Process(context.Background(), upload("bad.json"), "run", opener([]byte(`{}`)), nil); err == nil {
		t.Fatal("an unreadable chat was accepted")
	}
}

// Damaged and empty archives, every way: complete chats are kept and the
// damage recorded, or the archive fails whole with its reason.
func TestDamagedAndEmptyArchives(t *testing.T) {
	chatJSON := `{"messages":[{"participant":"Agent","text":"Hello"},{"participant":"Customer","text":"Hi"}]}`
	var full bytes.Buffer
	tw := tar.NewWriter(&full)
	var ends []int // where each entry's data (padded) ends
	for i := range 5 {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("c/%d.json", i), Mode: 0o644, Size: int64(len(chatJSON)), Typeflag: tar.TypeReg})
		tw.Write([]byte(chatJSON))
		tw.Flush()
		ends = append(ends, full.Len())
	}
	tw.Close()
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		w := gzip.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	emptyTar := func() []byte { var b bytes.Buffer; tar.NewWriter(&b).Close(); return b.Bytes() }()
	emptyZip := func() []byte { var b bytes.Buffer; zip.NewWriter(&b).Close(); return b.Bytes() }()
	gzFull := gz(full.Bytes())
	for _, c := range []struct {
		name    string
		file    string
		data    []byte
		chats   int    // chats kept; -1: the archive fails whole
		failure string // in the archive's failures, or its error
	}{
		{"complete", "a.tar", full.Bytes(), 5, ""},
		{"cut at an entry boundary", "a.tar", full.Bytes()[:ends[2]], 3, "without its end-of-archive marker"},
		{"cut inside an entry's data", "a.tar", full.Bytes()[:ends[2]+600], 3, "damaged after its first 3 files"},
		{"cut inside a header", "a.tar", full.Bytes()[:ends[3]+100], 4, "damaged after its first 4 files"},
		{"gzip cut short", "a.tar.gz", gzFull[:len(gzFull)-30], 3, "damaged after its first 3 files"},
		{"damaged from the start", "a.tar", bytes.Repeat([]byte("x"), 2048), -1, "cannot be processed"},
		{"empty tar", "a.tar", emptyTar, -1, "holds no files"},
		{"empty zip", "a.zip", emptyZip, -1, "holds no files"},
		{"zero bytes", "a.tar", nil, -1, "holds no files"},
		{"zip cut short", "a.zip", emptyZip[:10], -1, "cannot be processed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Chats{Limits: archive.DefaultLimits}.Process(context.Background(), upload(c.file), "run", opener(c.data), nil)
			if c.chats < 0 {
				if err == nil || !strings.Contains(err.Error(), c.failure) {
					t.Fatalf("want the archive to fail (%q): %v, %d children", c.failure, err, len(res.Outcome.Children))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Batch.Conversations) != c.chats || res.Outcome.Status != catalog.StatusReadyToSample {
				t.Fatalf("%d chats, status %s, want %d", len(res.Batch.Conversations), res.Outcome.Status, c.chats)
			}
			failures := strings.Join(res.Outcome.Failures, "; ")
			if (c.failure == "") != (failures == "") || !strings.Contains(failures, c.failure) {
				t.Fatalf("failures %q, want %q", failures, c.failure)
			}
		})
	}
}
