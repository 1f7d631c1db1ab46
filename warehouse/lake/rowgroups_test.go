package lake

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// Files are cut into row groups of at most RowGroupRows, in id order with
// disjoint id statistics, so that a reader of an id range can skip the
// others.
func TestRowGroupsSkippable(t *testing.T) {
	ctx := context.Background()
	w, dir := localWriter(t)
	day := time.Date(2025, 10, 3, 12, 0, 0, 0, time.UTC)
	var b Batch
	for i := range 2*RowGroupRows + 500 {
		b.Conversations = append(b.Conversations, Conversation{ID: fmt.Sprintf("c%06d", i), RunID: "r1", OrgID: "o1",
			MediaType: "Chat", FileName: "f", ArrivedOn: day, LocaleID: 1033, ExtendedMetadata: "{}", TranscriptMode: "chat"})
	}
	files, err := w.Write(ctx, "r1", b)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	groups := 0
	for _, f := range files {
		rows, err := db.Query(`SELECT row_group_num_rows, stats_min_value, stats_max_value FROM parquet_metadata(?)
			WHERE path_in_schema = 'conversation_id' ORDER BY row_group_id`, filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		prevMax := ""
		for rows.Next() {
			var n int64
			var lo, hi string
			if err := rows.Scan(&n, &lo, &hi); err != nil {
				t.Fatal(err)
			}
			if n > RowGroupRows || lo <= prevMax || hi < lo {
				t.Errorf("%s: row group of %d rows, ids %s..%s after %s", f.Path, n, lo, hi, prevMax)
			}
			prevMax = hi
			groups++
		}
		rows.Close()
	}
	if min := (2*RowGroupRows + 500 + RowGroupRows - 1) / RowGroupRows; groups < min {
		t.Fatalf("%d row groups for %d rows, want at least %d", groups, 2*RowGroupRows+500, min)
	}
}
