package pipeline

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/earshot/earshot/pipeline/archive"
	"github.com/earshot/earshot/warehouse/catalog"
)

// chatTar is a tar of n chats named c/0.json, c/1.json, …; ends are where
// each entry's data ends.
func chatTar(n int) (data []byte, ends []int) {
	const body = `{"messages":[{"participant":"Agent","text":"Hello"},{"participant":"Customer","text":"Hi"}]}`
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i := range n {
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("c/%d.json", i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		w.Write([]byte(body))
		w.Flush()
		ends = append(ends, buf.Len())
	}
	w.Close()
	return buf.Bytes(), ends
}

// A large archive is handed over in parts of PartChats chats, in archive
// order, while the rest is read; the Result holds the last chats and says
// it appends to the parts.
func TestArchiveInParts(t *testing.T) {
	t.Parallel()
	full, ends := chatTar(7)
	for _, c := range []struct {
		name      string
		data      []byte
		partChats int
		noCommit  bool   // the processor is given no Parts
		parts     []int  // chats in each part handed over
		rest      int    // chats in the Result
		failure   string // in the Result's failures
	}{
		{"parts and a rest", full, 3, false, []int{3, 3}, 1, ""},
		{"parts and no rest", full, 7, false, []int{7}, 0, ""},
		{"smaller than a part", full, 8, false, nil, 7, ""},
		{"no parts without a committer", full, 2, true, nil, 7, ""},
		{"damaged after some parts", full[:ends[2]+600], 2, false, []int{2}, 1, "damaged after its first 3 files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var handed []Result
			commit := func(_ context.Context, part Result) error {
				handed = append(handed, part)
				return nil
			}
			if c.noCommit {
				commit = nil
			}
			res, err := Chats{Limits: archive.DefaultLimits, PartChats: c.partChats}.Process(context.Background(), upload("a.tar"), "run", opener(c.data), commit)
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			var names []string
			for i, part := range handed {
				if !part.Outcome.Partial || part.Outcome.Appends != (i > 0) || len(part.Batch.Conversations) != len(part.Outcome.Children) {
					t.Fatalf("part %d: partial %v, appends %v, %d rows for %d chats", i, part.Outcome.Partial, part.Outcome.Appends,
						len(part.Batch.Conversations), len(part.Outcome.Children))
				}
				sizes = append(sizes, len(part.Outcome.Children))
				for _, ch := range part.Outcome.Children {
					names = append(names, ch.FileName)
				}
			}
			if !slices.Equal(sizes, c.parts) || len(res.Outcome.Children) != c.rest || res.Outcome.Partial || res.Outcome.Appends != (len(c.parts) > 0) {
				t.Fatalf("parts %v and %d chats in the result (appends %v), want %v and %d", sizes, len(res.Outcome.Children), res.Outcome.Appends, c.parts, c.rest)
			}
			for _, ch := range res.Outcome.Children {
				names = append(names, ch.FileName)
			}
			for i, name := range names {
				if want := fmt.Sprintf("a.tar/c/%d.json", i); name != want {
					t.Fatalf("chat %d is %s, want %s (archive order)", i, name, want)
				}
			}
			if failures := strings.Join(res.Outcome.Failures, "; "); !strings.Contains(failures, c.failure) || (c.failure == "") != (failures == "") {
				t.Fatalf("failures %q, want %q", failures, c.failure)
			}
		})
	}
}

// A part that cannot be committed stops the archive: no later part is
// handed over, and the error says why (a lease taken over stays
// recognisable, so the job leaves the upload to its new owner).
func TestArchivePartFailureStops(t *testing.T) {
	t.Parallel()
	full, _ := chatTar(7)
	calls := 0
	commit := func(context.Context, Result) error {
		calls++
		if calls == 2 {
			return fmt.Errorf("commit: %w", catalog.ErrLeaseLost)
		}
		return nil
	}
	res, err := Chats{Limits: archive.DefaultLimits, PartChats: 2}.Process(context.Background(), upload("a.tar"), "run", opener(full), commit)
	if !errors.Is(err, catalog.ErrLeaseLost) || len(res.Outcome.Children) != 0 {
		t.Fatalf("want the lease's loss: %v, %d chats", err, len(res.Outcome.Children))
	}
	if calls != 2 {
		t.Fatalf("%d parts handed over, want 2 (none after the failure)", calls)
	}
	if ClientReason(err) != InternalReason {
		t.Fatalf("the client reads %q", ClientReason(err))
	}
}

// Two archives read side by side, entry for entry (lockstep), hand over
// parts whose new chats' ids are runs that do not overlap: each part's
// chats get their ids at once, in archive order. Overlapping lake files
// would make one cluster of the day's figures, summed again from the lake
// at every commit.
func TestPartsOfArchivesReadSideBySideHoldRunsOfIDs(t *testing.T) {
	t.Parallel()
	const chats, partChats = 60, 10
	data, ends := chatTar(chats)
	turns := newLockstep()
	var mu sync.Mutex
	var runs [][]string // each part's ids, in archive order
	commit := func(_ context.Context, part Result) error {
		if len(part.Outcome.Children) == 0 { // the rest of an archive of whole parts
			return nil
		}
		ids := make([]string, len(part.Outcome.Children))
		for i, ch := range part.Outcome.Children {
			ids[i] = ch.ID
		}
		mu.Lock()
		runs = append(runs, ids)
		mu.Unlock()
		return nil
	}
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Go(func() {
			open := func(context.Context, string) (io.ReadCloser, error) {
				return io.NopCloser(&lockstepReader{data: data, ends: ends[:len(ends)-1], turns: turns, me: k}), nil
			}
			res, err := Chats{Limits: archive.DefaultLimits, PartChats: partChats}.Process(context.Background(), upload(fmt.Sprint(k, ".tar")), "run", open, commit)
			if err != nil {
				t.Error(err)
			}
			commit(context.Background(), res)
		})
	}
	wg.Wait()
	if len(runs) != 2*chats/partChats {
		t.Fatalf("%d parts, want %d", len(runs), 2*chats/partChats)
	}
	slices.SortFunc(runs, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	for i, run := range runs {
		if !slices.IsSorted(run) {
			t.Fatalf("part %d: ids out of archive order: %v", i, run)
		}
		if i > 0 && run[0] <= runs[i-1][len(runs[i-1])-1] {
			t.Fatalf("parts %d and %d overlap: %s–%s and %s–%s", i-1, i, runs[i-1][0], runs[i-1][len(runs[i-1])-1], run[0], run[len(run)-1])
		}
	}
}

// lockstep takes turns between two readers: each passes the turn at the
// end of an entry and waits for it back, until the other is done.
type lockstep struct {
	mu   sync.Mutex
	cond *sync.Cond
	turn int
	done [2]bool
}

func newLockstep() *lockstep {
	l := &lockstep{}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// pass gives the turn to the other reader and waits until it is me's
// again (or the other is done).
func (l *lockstep) pass(me int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turn = 1 - me
	l.cond.Broadcast()
	for l.turn != me && !l.done[1-me] {
		l.cond.Wait()
	}
}

// finish says me reads no more entries.
func (l *lockstep) finish(me int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done[me] = true
	l.turn = 1 - me
	l.cond.Broadcast()
}

// lockstepReader reads data, never across an entry's end (ends) in one
// read, and passes the turn before it reads past one.
type lockstepReader struct {
	data     []byte
	ends     []int
	turns    *lockstep
	me, pos  int
	next     int
	finished bool
}

func (r *lockstepReader) Read(p []byte) (int, error) {
	if r.next < len(r.ends) && r.pos == r.ends[r.next] {
		r.turns.pass(r.me)
		r.next++
	}
	if r.next == len(r.ends) && !r.finished {
		r.finished = true
		defer r.turns.finish(r.me)
	}
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	limit := len(r.data)
	if r.next < len(r.ends) {
		limit = r.ends[r.next]
	}
	n := copy(p, r.data[r.pos:limit])
	r.pos += n
	return n, nil
}
