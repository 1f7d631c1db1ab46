package jobs

import (
	"context"
	"strings"
	"testing"

	"github.com/earshot/earshot/warehouse/catalog"
)

// An upload whose chats would take a file name another interaction has —
// one in the catalog, or one another upload of the same batch claims —
// fails alone, with its reason; the rest of the batch commits, and the
// queue is not blocked.
func TestUploadWithTakenChatNameFailsAlone(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	single := e.stage(t, "day.tar/1.json", []byte(earshotChat))
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	clashesWithCatalog := e.stage(t, "day.tar", tarOf(t, map[string]string{"1.json": earshotChat, "2.json": earshotChat}, ""))
	good := e.stage(t, "good.tar", tarOf(t, map[string]string{"1.json": earshotChat}, ""))
	// These two claim the same name, a.tar/b.tar/c.json, in one batch of two:
	// the first keeps it.
	first := e.stage(t, "a.tar", tarOf(t, map[string]string{"b.tar/c.json": earshotChat}, ""))
	second := e.stage(t, "a.tar/b.tar", tarOf(t, map[string]string{"c.json": earshotChat}, ""))
	run, err := e.runner.Run(ctx, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["uploads_failed"] != 2 {
		t.Fatalf("counts %v", run.Counts)
	}
	for id, want := range map[string]string{single: "ReadyToSample", clashesWithCatalog: "FailedToProcess", good: "ReadyToSample",
		first: "ReadyToSample", second: "FailedToProcess"} {
		it, err := e.cat.Interactions.Interaction(ctx, e.org.ID, id)
		if err != nil || it.Status != want {
			t.Fatalf("%s: %s, want %s (%v)", it.FileName, it.Status, want, err)
		}
		if want == "FailedToProcess" && (len(it.ProcessFailures) != 1 ||
			!strings.Contains(it.ProcessFailures[0].Message, catalog.ErrFileNameTaken.Error())) {
			t.Fatalf("%s failures %+v", it.FileName, it.ProcessFailures)
		}
	}
	chats, _ := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{MediaType: catalog.MediaProcessedChat, Limit: 100})
	if len(chats) != 2 {
		t.Fatalf("%d chats recorded, want good.tar's and a.tar's", len(chats))
	}
	if pending, _ := e.cat.Interactions.PendingCount(ctx); pending != 0 {
		t.Fatalf("%d uploads still pending", pending)
	}
	// Their lake rows are no one's: the failed uploads wrote none.
	segs, err := e.reader.Transcripts(ctx, e.org.ID, chats)
	if err != nil || len(segs) != 2 {
		t.Fatalf("transcripts %d %v", len(segs), err)
	}
}
