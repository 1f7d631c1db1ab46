package jobs

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// slowChats is the chat processor taking as long as a long call.
type slowChats struct {
	pipeline.Chats
	delay time.Duration
}

func (s slowChats) Process(ctx context.Context, up catalog.Interaction, runID string, open pipeline.Opener) (pipeline.Result, error) {
	time.Sleep(s.delay)
	return s.Chats.Process(ctx, up, runID, open)
}

// An upload that takes four leases to process stays with its worker: the
// lease is renewed while it works, another worker's claim in the middle
// gets nothing, and the batch commits.
func TestLeaseRenewedWhileProcessing(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id := e.stage(t, "slow.json", []byte(ccaiChat))
	lease := 300 * time.Millisecond
	job := &Ingest{
		Uploads: e.cat.Interactions, Lake: &lake.Writer{Bucket: e.bucket}, Open: e.bucket.Get,
		Processors: []pipeline.Processor{slowChats{Chats: pipeline.Chats{Limits: archive.DefaultLimits, Directory: e.cat.People}, delay: 4 * lease}},
		Queues:     []Queue{{MediaTypes: []string{catalog.MediaChat}, BatchSize: 1}},
		Owner:      "worker-a", Workers: 1, Lease: lease, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	intruder := make(chan []catalog.Interaction, 1)
	go func() {
		time.Sleep(2 * lease)
		claimed, err := e.cat.Interactions.ClaimPending(ctx, "worker-b", []string{catalog.MediaChat}, 10, lease)
		if err != nil {
			t.Error(err)
		}
		intruder <- claimed
	}()
	counts, err := job.Run(ctx, catalog.JobRun{ID: catalog.NewID()})
	if err != nil {
		t.Fatal(err)
	}
	if claimed := <-intruder; len(claimed) != 0 {
		t.Fatalf("another worker claimed %d uploads in the middle of the work", len(claimed))
	}
	if counts["conversations"] != 1 {
		t.Fatalf("counts %v", counts)
	}
	if it, err := e.cat.Interactions.Interaction(ctx, e.org.ID, id); err != nil || it.Status != catalog.StatusReadyToSample {
		t.Fatalf("%+v %v", it.Status, err)
	}
}
