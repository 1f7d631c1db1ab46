package results

import (
	"slices"
	"testing"

	"github.com/earshot/earshot/warehouse/catalog"
)

func TestBatchFiles(t *testing.T) {
	file := func(path, lo, hi string, rows int64) catalog.LakeFile {
		return catalog.LakeFile{Path: path, MinID: lo, MaxID: hi, Rows: rows}
	}
	// Sorted by MinID, as conversationFiles returns them: two days, and a
	// re-run file overlapping the first day.
	files := []catalog.LakeFile{
		file("day1", "a100", "a199", 100),
		file("rerun", "a150", "a250", 10),
		file("day2", "a300", "a399", 100),
		file("day3", "a400", "a499", 100),
	}
	for _, tc := range []struct {
		name      string
		cursor    string
		limit     int
		paths     []string
		wantBound string
	}{
		{"first file holds the batch; the overlapping one joins it", "", 50, []string{"day1", "rerun"}, "a250"},
		{"files until the limit is reached", "", 150, []string{"day1", "rerun", "day2"}, "a399"},
		{"the cursor skips files it passed", "a260", 50, []string{"day2"}, "a399"},
		{"a cursor inside a file keeps it", "a350", 50, []string{"day2"}, "a399"},
		{"the last files: no bound", "a350", 500, []string{"day2", "day3"}, ""},
		{"past every file", "a499", 10, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths, bound := batchFiles(files, tc.cursor, tc.limit)
			if !slices.Equal(paths, tc.paths) || bound != tc.wantBound {
				t.Fatalf("got %v bound %q, want %v bound %q", paths, bound, tc.paths, tc.wantBound)
			}
		})
	}
}

// A batch reads one row beyond what the page needs (a full batch leaves
// its last conversation to the next), and a few more where files overlap:
// one holds ids in the range of another (a run's files beside an earlier
// run's, before compaction).
func TestBatchSlack(t *testing.T) {
	file := func(lo, hi string) catalog.LakeFile { return catalog.LakeFile{MinID: lo, MaxID: hi} }
	for _, tc := range []struct {
		name  string
		files []catalog.LakeFile
		want  int
	}{
		{"none", nil, 1},
		{"one", []catalog.LakeFile{file("a1", "a9")}, 1},
		{"apart", []catalog.LakeFile{file("a1", "a4"), file("a5", "a9"), file("b1", "b2")}, 1},
		{"inside another", []catalog.LakeFile{file("a1", "a9"), file("a3", "a4")}, 32},
		{"across the end of one", []catalog.LakeFile{file("a1", "a4"), file("a4", "a9")}, 32},
		{"inside one before the last", []catalog.LakeFile{file("a1", "a9"), file("a2", "a3"), file("b1", "b2")}, 32},
	} {
		if got := batchSlack(tc.files, 1001); got != tc.want {
			t.Errorf("%s: slack %d, want %d", tc.name, got, tc.want)
		}
	}
}
