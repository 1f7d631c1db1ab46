package jobs

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// waitingLake holds its first write until the uploads opened reach want:
// it fails the write if they do not within a generous deadline.
type waitingLake struct {
	inner  LakeWriter
	opened *atomic.Int64
	want   int64
	first  atomic.Bool
}

func (l *waitingLake) Write(ctx context.Context, runID string, b lake.Batch) ([]catalog.LakeFile, error) {
	if l.first.CompareAndSwap(false, true) {
		deadline := time.Now().Add(30 * time.Second)
		for l.opened.Load() < l.want {
			if time.Now().After(deadline) {
				return nil, errors.New("the next batch was not processed while this one was being written")
			}
			time.Sleep(time.Millisecond) // polling a condition, bounded by the deadline
		}
	}
	return l.inner.Write(ctx, runID, b)
}

// Batches overlap: the second batch is claimed and processed while the
// first one's lake files are written, and both commit.
func TestNextBatchIsProcessedWhileOneCommits(t *testing.T) {
	t.Parallel()
	var opened atomic.Int64
	e := newEnv(t, func(i *Ingest) {
		open := i.Open
		i.Open = func(ctx context.Context, key string) (io.ReadCloser, error) {
			opened.Add(1)
			return open(ctx, key)
		}
		// Batches of two uploads: the third open is the second batch's.
		i.Lake = &waitingLake{inner: i.Lake, opened: &opened, want: 3}
	})
	for _, name := range []string{"a.json", "b.json", "c.json", "d.json"} {
		e.stage(t, name, []byte(ccaiChat))
	}
	run, err := e.runner.Run(context.Background(), "ingest")
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["conversations"] != 4 || run.Counts["uploads"] != 4 {
		t.Errorf("counts %v, want 4 uploads and 4 conversations committed", run.Counts)
	}
}

// failingLake fails its write number fail (counting from one).
type failingLake struct {
	inner  LakeWriter
	writes atomic.Int64
	fail   int64
}

func (l *failingLake) Write(ctx context.Context, runID string, b lake.Batch) ([]catalog.LakeFile, error) {
	if l.writes.Add(1) == l.fail {
		return nil, errors.New("the disk is full")
	}
	return l.inner.Write(ctx, runID, b)
}

// failingCommits fails its commit number fail.
type failingCommits struct {
	Uploads
	commits atomic.Int64
	fail    int64
}

func (u *failingCommits) CommitIngest(ctx context.Context, ic catalog.IngestCommit) error {
	if u.commits.Add(1) == u.fail {
		return errors.New("the catalog went away")
	}
	return u.Uploads.CommitIngest(ctx, ic)
}

// A batch whose lake write or commit fails stops the run with the
// failure; the batches before it stay committed, it and those after it
// give their claims back at once (the next run takes them, without
// waiting for the leases to run out), and nothing is counted twice.
func TestFailedWriteOrCommitGivesTheRestBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(*Ingest)
		cause string
	}{
		{"write", func(i *Ingest) { i.Lake = &failingLake{inner: i.Lake, fail: 2} }, "the disk is full"},
		{"commit", func(i *Ingest) { i.Uploads = &failingCommits{Uploads: i.Uploads, fail: 2} }, "the catalog went away"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := newEnv(t, tc.edit) // batches of two uploads
			for _, name := range []string{"a.json", "b.json", "c.json", "d.json", "e.json", "f.json"} {
				e.stage(t, name, []byte(ccaiChat))
			}
			run, err := e.runner.Run(ctx, "ingest")
			if err == nil || !strings.Contains(err.Error(), tc.cause) {
				t.Fatalf("run %v: %v, want the failure", run.Counts, err)
			}
			if run.Counts["conversations"] != 2 {
				t.Fatalf("counts %v, want the first batch alone committed", run.Counts)
			}
			if pending, _ := e.cat.Interactions.PendingCount(ctx); pending != 4 {
				t.Fatalf("%d uploads pending, want the other four", pending)
			}
			again, err := e.runner.Run(ctx, "ingest")
			if err != nil || again.Counts["conversations"] != 4 {
				t.Fatalf("next run %v: %v, want the other four committed at once", again.Counts, err)
			}
			e.assertCounted(t, 6)
		})
	}
}
