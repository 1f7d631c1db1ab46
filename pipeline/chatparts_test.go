package pipeline

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
