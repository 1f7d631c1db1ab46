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

// heldChats is the chat processor of a long call: it works until done is
// closed.
type heldChats struct {
	pipeline.Chats
	done chan struct{}
}

func (h heldChats) Process(ctx context.Context, up catalog.Interaction, runID string, open pipeline.Opener, commit pipeline.Parts) (pipeline.Result, error) {
	<-h.done
	return h.Chats.Process(ctx, up, runID, open, commit)
}

// renewals counts the leases' renewals.
type renewals struct {
	Uploads
	renewed chan struct{}
}

func (r renewals) RenewLeases(ctx context.Context, owner string, ids []string, lease time.Duration) (int, error) {
	n, err := r.Uploads.RenewLeases(ctx, owner, ids, lease)
	r.renewed <- struct{}{}
	return n, err
}

// An upload whose work outlasts its lease stays with its worker: the
// lease is renewed while it works (every third of a lease), another
// worker's claim once the first lease would have run out gets nothing,
// and the batch commits.
func TestLeaseRenewedWhileProcessing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	id := e.stage(t, "slow.json", []byte(ccaiChat))
	lease := 300 * time.Millisecond
	done, renewed := make(chan struct{}), make(chan struct{})
	job := &Ingest{
		Uploads: renewals{Uploads: e.cat.Interactions, renewed: renewed}, Lake: &lake.Writer{Bucket: e.bucket}, Open: e.bucket.Get,
		Processors: []pipeline.Processor{heldChats{Chats: pipeline.Chats{Limits: archive.DefaultLimits, Directory: e.cat.People}, done: done}},
		Queues:     []Queue{{MediaTypes: []string{catalog.MediaChat}, BatchSize: 1}},
		Owner:      "worker-a", Workers: 1, Lease: lease, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	intruder := make(chan []catalog.Interaction, 1)
	go func() {
		// Four renewals: more than a lease has passed since the claim. A
		// renewal missing for two leases claims at once (and finds the
		// lease run out).
		for range 4 {
			select {
			case <-renewed:
			case <-time.After(2 * lease):
			}
		}
		claimed, err := e.cat.Interactions.ClaimPending(ctx, "worker-b", []string{catalog.MediaChat}, 10, lease)
		if err != nil {
			t.Error(err)
		}
		intruder <- claimed
		close(done)
		for range renewed { // renewals until the work ends
		}
	}()
	counts, err := job.Run(ctx, catalog.JobRun{ID: catalog.NewID()})
	close(renewed) // the renewing ends with the work
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
