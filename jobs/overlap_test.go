package jobs

import (
	"context"
	"errors"
	"io"
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
