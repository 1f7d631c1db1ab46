package jobs

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/sidebyside"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
)

// waitingOpener opens the first free objects at once, then nothing
// until together more opens are asked for at once (an object store's
// round trips, which a worker must not wait for one by one).
func waitingOpener(open pipeline.Opener, free, together int) pipeline.Opener {
	gate := sidebyside.NewGate(free, together)
	return func(ctx context.Context, key string) (io.ReadCloser, error) {
		if err := gate.Wait(ctx); err != nil {
			return nil, err
		}
		return open(ctx, key)
	}
}

// A batch's uploads are opened ahead of the one worker that processes
// them: with a bucket that, after the first batch (one upload), opens
// nothing until four opens are asked for at once, every upload is still
// processed.
func TestUploadsOpenedAhead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(j *Ingest) {
		j.Workers = 1
		j.Open = waitingOpener(j.Open, 1, 4)
		for i := range j.Queues {
			j.Queues[i].BatchSize = 10
		}
	})
	for i := range 8 {
		e.stage(t, fmt.Sprintf("chat-%d.txt", i), []byte(textChat))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // an open waited for alone never returns
	defer cancel()
	run, err := e.runner.Run(ctx, "ingest")
	if err != nil || run.Counts["conversations"] != 8 || run.Counts["uploads_failed"] != 0 {
		t.Fatalf("%+v %v", run.Counts, err)
	}
}

// An upload opened ahead is handed over once, opened again when asked
// again, and closed when its upload never asks for it.
func TestOpenAheadHandsOverOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var opensOfA, closes atomic.Int64
	ahead := newOpenAhead(func(_ context.Context, key string) (io.ReadCloser, error) {
		if key == "a" {
			opensOfA.Add(1)
		}
		return closeCounter{&closes}, nil
	})
	ahead.start(ctx, "a")
	ahead.start(ctx, "b")
	rc, err := ahead.Open(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if _, err := ahead.Open(ctx, "a"); err != nil || opensOfA.Load() != 2 {
		t.Fatalf("a asked again: opened %d times, %v", opensOfA.Load(), err)
	}
	ahead.drop("b") // never asked for
	ahead.drop("a") // taken already: nothing to close
	deadline := time.Now().Add(time.Minute)
	for closes.Load() != 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling for the background close, not a fixed wait
	}
	if closes.Load() != 2 {
		t.Fatalf("%d closes, want a's and the dropped b's", closes.Load())
	}
}

// closeCounter is an empty object that counts its closes.
type closeCounter struct{ closes *atomic.Int64 }

func (c closeCounter) Read([]byte) (int, error) { return 0, io.EOF }
func (c closeCounter) Close() error             { c.closes.Add(1); return nil }

// BenchmarkIngestSingleChatsFromRemoteBucket ingests 200 uploads of one
// chat each, two workers, through a bucket whose every open is a round
// trip of 10 ms (an object store's), beside the baseline of the same
// uploads opened from the local bucket at once: what the bucket's latency
// adds to ingest.
func BenchmarkIngestSingleChatsFromRemoteBucket(b *testing.B) {
	for _, c := range []struct {
		name      string
		roundTrip time.Duration
	}{{"open-10ms-round-trip", 10 * time.Millisecond}, {"baseline-local-open", 0}} {
		b.Run(c.name, func(b *testing.B) {
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				e := newEnv(b, func(j *Ingest) {
					local := j.Open
					j.Open = func(ctx context.Context, key string) (io.ReadCloser, error) {
						time.Sleep(c.roundTrip) // the modelled network, not a wait for a condition
						return local(ctx, key)
					}
					for i := range j.Queues {
						j.Queues[i].BatchSize = 1000
					}
				})
				for i := range 200 {
					e.stage(b, fmt.Sprintf("chat-%d.txt", i), []byte(textChat))
				}
				b.StartTimer()
				start := time.Now()
				run, err := e.runner.Run(context.Background(), "ingest")
				elapsed += time.Since(start)
				if err != nil || run.Counts["conversations"] != 200 {
					b.Fatalf("%+v %v", run.Counts, err)
				}
			}
			b.ReportMetric(200*float64(b.N)/elapsed.Seconds(), "conv/s")
		})
	}
}

// Small staged uploads are opened ahead; large ones (read for long after
// their open) and those without a staged object are not.
func TestOpensAheadOf(t *testing.T) {
	t.Parallel()
	key := "staging/x"
	for _, c := range []struct {
		name string
		up   catalog.Interaction
		want bool
	}{
		{"a single chat", catalog.Interaction{StagedKey: &key, FileSizeBytes: 2_000}, true},
		{"at the bound", catalog.Interaction{StagedKey: &key, FileSizeBytes: openAheadBytes}, true},
		{"an archive", catalog.Interaction{StagedKey: &key, FileSizeBytes: openAheadBytes + 1}, false},
		{"nothing staged", catalog.Interaction{FileSizeBytes: 2_000}, false},
	} {
		if got := opensAheadOf(c.up); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
