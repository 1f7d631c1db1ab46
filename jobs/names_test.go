package jobs

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// A batch's chat names are checked while the batch before it may still be
// committing: a name that batch takes fails the later upload alone, as
// one the catalog has would. The first batch (one upload a worker) is
// held from its commit until the second (two uploads) has had its names
// checked.
func TestChatNameOfBatchNotYetCommittedFailsAlone(t *testing.T) {
	ctx := context.Background()
	var gate *commitAfterNextCheck
	e := newEnv(t, func(j *Ingest) {
		gate = &commitAfterNextCheck{Uploads: j.Uploads, checked: make(chan struct{})}
		j.Uploads, j.Workers = gate, 1
	})
	first := e.stage(t, "a.tar", tarOf(t, map[string]string{"b.tar/c.json": earshotChat}, ""))
	second := e.stage(t, "a.tar/b.tar", tarOf(t, map[string]string{"c.json": earshotChat}, ""))
	third := e.stage(t, "d.tar", tarOf(t, map[string]string{"e.json": earshotChat}, ""))
	run, err := e.runner.Run(ctx, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["uploads_failed"] != 1 || run.Counts["conversations"] != 2 {
		t.Fatalf("counts %v", run.Counts)
	}
	for id, want := range map[string]string{first: "ReadyToSample", second: "FailedToProcess", third: "ReadyToSample"} {
		it, err := e.cat.Interactions.Interaction(ctx, e.org.ID, id)
		if err != nil || it.Status != want {
			t.Fatalf("%s: %s, want %s (%v)", it.FileName, it.Status, want, err)
		}
	}
}

// commitAfterNextCheck holds the first commit until the catalog is asked
// a second time for taken chat names: a second batch's names are checked
// then, those it shares with the first already refused.
type commitAfterNextCheck struct {
	Uploads
	checks  atomic.Int32
	commits atomic.Int32
	checked chan struct{}
}

func (u *commitAfterNextCheck) TakenFileNames(ctx context.Context, orgID string, names, except []string) ([]string, error) {
	if u.checks.Add(1) == 2 {
		close(u.checked)
	}
	return u.Uploads.TakenFileNames(ctx, orgID, names, except)
}

func (u *commitAfterNextCheck) CommitIngest(ctx context.Context, ic catalog.IngestCommit) error {
	if u.commits.Add(1) == 1 {
		select {
		case <-u.checked:
		case <-time.After(time.Minute):
			return errors.New("the next batch's chat names were not checked while this batch waited for its commit")
		}
	}
	return u.Uploads.CommitIngest(ctx, ic)
}
