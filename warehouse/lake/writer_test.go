package lake

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/earshot/earshot/internal/sidebyside"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

var update = flag.Bool("update", false, "rewrite the schema golden file")

func ptr[T any](v T) *T { return &v }

// The persisted schema is a contract with analysts: a golden file holds it,
// as DuckDB reads it back, with each column's compression.
// localWriter is a writer into a temporary local bucket at dir.
func localWriter(t *testing.T) (w *Writer, dir string) {
	dir = t.TempDir()
	bucket, err := blob.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &Writer{Bucket: bucket}, dir
}

// A file's ranges are the earliest and the latest of its rows' times,
// wherever they are among its rows; a conversation without an interaction
// date took place when it arrived.
func TestTimeRange(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2025, 10, 3, h, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name                  string
		rows                  []Conversation
		arrivals, interaction [2]int // hours, first and last
	}{
		{"one row", []Conversation{{ArrivedOn: at(5), InteractionDate: ptr(at(4))}}, [2]int{5, 5}, [2]int{4, 4}},
		{"extremes inside", []Conversation{{ArrivedOn: at(5)}, {ArrivedOn: at(2)}, {ArrivedOn: at(9)}, {ArrivedOn: at(6)}}, [2]int{2, 9}, [2]int{2, 9}},
		{"interaction dates apart", []Conversation{{ArrivedOn: at(10), InteractionDate: ptr(at(1))}, {ArrivedOn: at(8)}, {ArrivedOn: at(12), InteractionDate: ptr(at(3))}},
			[2]int{8, 12}, [2]int{1, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := timeRange(tc.rows, arrival)
			ilo, ihi := timeRange(tc.rows, effectiveInteraction)
			if !lo.Equal(at(tc.arrivals[0])) || !hi.Equal(at(tc.arrivals[1])) || !ilo.Equal(at(tc.interaction[0])) || !ihi.Equal(at(tc.interaction[1])) {
				t.Fatalf("arrivals %v..%v, interactions %v..%v", lo, hi, ilo, ihi)
			}
		})
	}
	if lo, hi := timeRange(nil, arrival); lo != nil || hi != nil {
		t.Fatalf("no rows: %v..%v", lo, hi)
	}
}

func TestWriterPersistedSchema(t *testing.T) {
	ctx := context.Background()
	w, dir := localWriter(t)
	day := time.Date(2025, 10, 3, 23, 59, 0, 0, time.UTC)
	batch := sampleBatch(day)
	files, err := w.Write(ctx, "r1", batch)
	if err != nil {
		t.Fatal(err)
	}
	var layout []string
	for _, f := range files {
		line := fmt.Sprintf("%s rows=%d ids=%s..%s", strings.TrimSuffix(f.Path[:strings.LastIndex(f.Path, "/")], ""), f.Rows, f.MinID, f.MaxID)
		if f.MinArrival != nil { // conversations files: the ranges the manifest prunes by
			line += fmt.Sprintf(" arrivals=%s..%s interactions=%s..%s", f.MinArrival.Format(time.TimeOnly), f.MaxArrival.Format(time.TimeOnly),
				f.MinInteraction.Format(time.DateTime), f.MaxInteraction.Format(time.DateTime))
		}
		layout = append(layout, line)
	}
	want := []string{
		"lake/conversations/org=o1/date=2025-10-03 rows=3 ids=c1..c3 arrivals=23:59:00..23:59:00 interactions=2025-10-03 22:59:00..2025-10-03 22:59:00",
		"lake/conversations/org=o2/date=2025-10-04 rows=1 ids=x1..x1 arrivals=00:01:00..00:01:00 interactions=2025-10-04 00:01:00..2025-10-04 00:01:00",
		"lake/transcript_segments/org=o1/date=2025-10-03 rows=6 ids=c1..c3",
		"lake/classifier_results/org=o1/date=2025-10-03 rows=4 ids=c1..c2",
		"lake/model_results/org=o1/date=2025-10-03 rows=4 ids=c1..c2",
	}
	if strings.Join(layout, "\n") != strings.Join(want, "\n") {
		t.Fatalf("files:\n%s", strings.Join(layout, "\n"))
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out strings.Builder
	for _, f := range []catalog.LakeFile{files[0], files[2], files[3], files[4]} {
		path := filepath.Join(dir, f.Path)
		fmt.Fprintf(&out, "%s\n", f.Table)
		rows, err := db.Query(`SELECT path_in_schema, type, compression FROM parquet_metadata('` + path + `') ORDER BY column_id`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var col, typ, comp string
			rows.Scan(&col, &typ, &comp)
			fmt.Fprintf(&out, "  %-28s %-12s %s\n", col, typ, comp)
		}
		rows.Close()
		rows, _ = db.Query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('` + path + `'))`)
		for rows.Next() {
			var col, typ string
			rows.Scan(&col, &typ)
			fmt.Fprintf(&out, "  duckdb %-21s %s\n", col, typ)
		}
		rows.Close()
	}
	// Sorted by conversation id (and segment index), whatever the input order.
	var order string
	db.QueryRow(`SELECT string_agg(conversation_id || ':' || segment_index, ' ') FROM read_parquet('` + filepath.Join(dir, files[2].Path) + `')`).Scan(&order)
	if order != "c1:0 c1:1 c2:0 c2:1 c3:0 c3:1" {
		t.Fatalf("segment order %s", order)
	}
	db.QueryRow(`SELECT string_agg(conversation_id || ':' || classifier_id, ' ') FROM read_parquet('` + filepath.Join(dir, files[3].Path) + `')`).Scan(&order)
	if order != "c1:k1 c1:k2 c2:k1 c2:k2" {
		t.Fatalf("classifier result order %s", order)
	}
	var arrived time.Time
	db.QueryRow(`SELECT arrived_on FROM read_parquet('` + filepath.Join(dir, files[0].Path) + `') LIMIT 1`).Scan(&arrived)
	if !arrived.Equal(day) {
		t.Fatalf("arrived_on read back as %v", arrived)
	}
	golden := filepath.Join("testdata", "schema.golden")
	if *update {
		os.WriteFile(golden, []byte(out.String()), 0o644)
	}
	wantSchema, _ := os.ReadFile(golden)
	if out.String() != string(wantSchema) {
		t.Fatalf("persisted schema changed (go test ./warehouse/lake -update if intended):\n%s", out.String())
	}
}

func TestSplitAt(t *testing.T) {
	// Rows of conversations: ids change where conv[i] != conv[i-1].
	conv := make([]int, 100_000)
	for i := range conv {
		conv[i] = i / 7 // 7 rows per conversation
	}
	boundary := func(i int) bool { return conv[i] != conv[i-1] }
	cases := []struct {
		n, parts int
		want     int // ranges
	}{
		{0, 2, 0}, {10, 2, 1}, {2*minRowsPerSplit - 1, 2, 1}, {2 * minRowsPerSplit, 2, 2}, {100_000, 2, 2},
		{100_000, 64, 100_000 / minRowsPerSplit}, {100_000, 1, 1},
	}
	for _, c := range cases {
		got := splitAt(c.n, c.parts, boundary)
		if len(got) != c.want {
			t.Errorf("splitAt(%d, %d) = %d ranges %v, want %d", c.n, c.parts, len(got), got, c.want)
			continue
		}
		next := 0
		for _, r := range got {
			if r[0] != next || r[1] <= r[0] || (r[0] > 0 && !boundary(r[0])) {
				t.Errorf("splitAt(%d, %d): bad range %v in %v", c.n, c.parts, r, got)
			}
			next = r[1]
		}
		if c.n > 0 && next != c.n {
			t.Errorf("splitAt(%d, %d) covers %d rows", c.n, c.parts, next)
		}
	}
}

// One partition, rows out of order: the batch's slice is grouped without a
// copy and sorted in place by conversation id, then segment index.
func TestGroupAndSortSinglePartition(t *testing.T) {
	day := time.Date(2025, 10, 3, 0, 0, 0, 0, time.UTC)
	segs := []Segment{
		{ConversationID: "b", Index: 1, OrgID: "o", ArrivedOn: day}, {ConversationID: "a", Index: 0, OrgID: "o", ArrivedOn: day},
		{ConversationID: "b", Index: 0, OrgID: "o", ArrivedOn: day.Add(time.Hour)},
	}
	groups := groupByPartition(segs, func(s *Segment) partition { return partitionOf(s.OrgID, s.ArrivedOn) })
	if len(groups) != 1 || &groups[partition{"o", day}][0] != &segs[0] {
		t.Fatalf("groups %v: want the batch's own slice", groups)
	}
	sortRows(segs, func(a, b *Segment) int {
		if a.ConversationID != b.ConversationID {
			return strings.Compare(a.ConversationID, b.ConversationID)
		}
		return int(a.Index - b.Index)
	})
	var got []string
	for _, s := range segs {
		got = append(got, fmt.Sprint(s.ConversationID, s.Index))
	}
	if strings.Join(got, " ") != "a0 b0 b1" {
		t.Fatalf("order %v", got)
	}
}

// Rows that compare equal keep their order (the sort is stable).
func TestSortRowsIsStable(t *testing.T) {
	t.Parallel()
	rows := []Segment{{ConversationID: "b", Text: "1"}, {ConversationID: "a", Text: "2"}, {ConversationID: "b", Text: "3"},
		{ConversationID: "a", Text: "4"}, {ConversationID: "c", Text: "5"}, {ConversationID: "a", Text: "6"}}
	sortRows(rows, func(a, b *Segment) int { return strings.Compare(a.ConversationID, b.ConversationID) })
	var got []string
	for _, r := range rows {
		got = append(got, r.ConversationID+r.Text)
	}
	if strings.Join(got, " ") != "a2 a4 a6 b1 b3 c5" {
		t.Fatalf("order %v", got)
	}
}

// A dictionary column holds each distinct value once, in order of first
// appearance, and every row's index into them; nulls stay null.
func TestDictionaryOf(t *testing.T) {
	t.Parallel()
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range []string{"b", "b", "", "a", "b", "a"} {
		if v == "" {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	strs := b.NewStringArray()
	defer strs.Release()
	dict := dictionaryOf(strs).(*array.Dictionary)
	defer dict.Release()
	var got []string
	for i := range dict.Len() {
		if dict.IsNull(i) {
			got = append(got, "null")
			continue
		}
		got = append(got, dict.Dictionary().(*array.String).Value(dict.GetValueIndex(i)))
	}
	if strings.Join(got, " ") != "b b null a b a" || dict.Dictionary().Len() != 2 {
		t.Fatalf("rows %v, %d distinct values", got, dict.Dictionary().Len())
	}
}

// A large partition is split at conversation boundaries into files with
// disjoint id ranges, up to one a worker, in every table: no conversation
// has rows in two files of a batch, and no row is lost.
func TestWriterSplitsLargePartitions(t *testing.T) {
	w, _ := localWriter(t)
	w.Workers = 4
	day := time.Date(2025, 10, 1, 9, 0, 0, 0, time.UTC)
	const convs, classifiers = 2*minRowsPerSplit/10 + 7, 10 // two splits' worth of results and segments
	var b Batch
	for i := range convs {
		id := fmt.Sprintf("c%05d", i)
		b.Conversations = append(b.Conversations, Conversation{ID: id, RunID: "r", OrgID: "o", ArrivedOn: day, MediaType: "Chat"})
		for j := range 10 {
			b.Segments = append(b.Segments, Segment{ConversationID: id, RunID: "r", OrgID: "o", ArrivedOn: day, Index: int32(j), Speaker: "Agent", Text: "hello"})
		}
		for j := range classifiers {
			b.ClassifierResults = append(b.ClassifierResults, ClassifierResult{ConversationID: id, RunID: "r", OrgID: "o", ArrivedOn: day,
				ClassifierID: fmt.Sprintf("k%02d", j), Version: 1, Type: "Classifier", Category: "Topics", Result: "true"})
			b.ModelResults = append(b.ModelResults, ModelResult{ConversationID: id, RunID: "r", OrgID: "o", ArrivedOn: day,
				EventType: "ModelResults", EventTime: day, ModelID: fmt.Sprintf("m%02d", j), Version: 1, Result: ptr(true)})
		}
	}
	files, err := w.Write(context.Background(), "r", b)
	if err != nil {
		t.Fatal(err)
	}
	byTable := map[string][]catalog.LakeFile{}
	for _, f := range files {
		byTable[f.Table] = append(byTable[f.Table], f)
	}
	for table, want := range map[string]int64{TableSegments: convs * 10, TableClassifierResults: convs * classifiers, TableModelResults: convs * classifiers} {
		fs := byTable[table]
		if len(fs) < 2 {
			t.Fatalf("%s: %d files, want the partition split", table, len(fs))
		}
		slices.SortFunc(fs, func(a, b catalog.LakeFile) int { return strings.Compare(a.MinID, b.MinID) })
		var rows int64
		for i, f := range fs {
			rows += f.Rows
			if i > 0 && f.MinID <= fs[i-1].MaxID {
				t.Fatalf("%s: files %s–%s and %s–%s share conversations", table, fs[i-1].MinID, fs[i-1].MaxID, f.MinID, f.MaxID)
			}
		}
		if rows != want {
			t.Fatalf("%s: %d rows in its files, want %d", table, rows, want)
		}
	}
}

// sampleBatch is a batch of every table, out of order, of two
// organizations, one of them on two days.
func sampleBatch(day time.Time) Batch {
	batch := Batch{}
	for _, id := range []string{"c3", "c1", "c2"} {
		batch.Conversations = append(batch.Conversations, Conversation{ID: id, RunID: "r1", OrgID: "o1", MediaType: "ProcessedChat",
			FileName: id + ".json", ArrivedOn: day, InteractionDate: ptr(day.Add(-time.Hour)), LocaleID: 1033,
			ChatMessageCount: ptr(int32(2)), ExtendedMetadata: `{"queue":"billing"}`, TranscriptMode: "chat"})
		for i := int32(1); i >= 0; i-- {
			batch.Segments = append(batch.Segments, Segment{ConversationID: id, RunID: "r1", OrgID: "o1", ArrivedOn: day, Index: i,
				Speaker: "Agent", StartMs: int64(i) * 1000, EndMs: int64(i)*1000 + 900, Text: fmt.Sprint("turn ", i),
				Words: []Word{{Word: "turn", StartMs: 0, EndMs: 400, Confidence: 0.9}}})
		}
	}
	for _, id := range []string{"c2", "c1"} {
		for _, cl := range []string{"k2", "k1"} {
			yes := cl == "k1"
			batch.ClassifierResults = append(batch.ClassifierResults, ClassifierResult{ConversationID: id, RunID: "r1", OrgID: "o1", ArrivedOn: day,
				ClassifierID: cl, Version: 3, Type: "Classifier", Category: "Topics", Result: fmt.Sprint(yes), Score: ptr(0.5),
				Evidence: []Evidence{{Turn: 1, StartMs: 1000, EndMs: 1900, Text: "cancel"}}})
			batch.ModelResults = append(batch.ModelResults, ModelResult{ConversationID: id, RunID: "r1", OrgID: "o1", ArrivedOn: day,
				EventType: "ModelResults", EventTime: day, ModelID: cl, Version: 3, Result: &yes})
		}
	}
	// Another organization and day land in partitions of their own.
	batch.Conversations = append(batch.Conversations, Conversation{ID: "x1", RunID: "r1", OrgID: "o2", MediaType: "Chat",
		FileName: "x1.json", ArrivedOn: day.Add(2 * time.Minute), LocaleID: 2058, ExtendedMetadata: "{}", TranscriptMode: "chat"})
	return batch
}

// The writer gives every buffer it builds and encodes records in back to
// its allocator (the pool, not the collector, gets them), and a batch
// written again from reused buffers gives the same files.
func TestWriterReturnsItsBuffers(t *testing.T) {
	checked := memory.NewCheckedAllocator(&pooledAllocator{})
	was := buffers
	buffers = checked
	defer func() { buffers = was }()
	w, dir := localWriter(t)
	batch := sampleBatch(time.Date(2025, 10, 3, 23, 59, 0, 0, time.UTC))
	var written [2][][]byte
	for i := range written {
		files, err := w.Write(context.Background(), "r1", batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			written[i] = append(written[i], data)
		}
		checked.AssertSize(t, 0)
	}
	if len(written[0]) != 5 || !slices.EqualFunc(written[0], written[1], bytes.Equal) {
		t.Fatalf("%d files, then %d: a batch written from reused buffers differs", len(written[0]), len(written[1]))
	}
}

// waitingPutter stores nothing until several puts are asked for at once
// (an object store's round trips, which the writer must not wait on one
// by one), then stores them all in the bucket.
type waitingPutter struct {
	Putter
	gate *sidebyside.Gate
}

func (p waitingPutter) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) (blob.ObjectInfo, error) {
	if err := p.gate.Wait(ctx); err != nil {
		return blob.ObjectInfo{}, err
	}
	return p.Putter.Put(ctx, key, r, opts)
}

// A batch's files are stored while the next are encoded: with one
// encoder, a bucket that stores nothing until three puts are asked for
// at once still gets every file.
func TestWriterStoresBesideEncoding(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a put waited on never returns
	defer cancel()
	w, _ := localWriter(t)
	w.Workers = 1
	w.Bucket = waitingPutter{Putter: w.Bucket, gate: sidebyside.NewGate(0, 3)}
	files, err := w.Write(ctx, "r1", sampleBatch(time.Date(2025, 10, 3, 9, 0, 0, 0, time.UTC)))
	if err != nil || len(files) != 5 {
		t.Fatalf("%d files, %v; want the sample batch's 5", len(files), err)
	}
	for _, f := range files {
		if f.Path == "" || f.Rows == 0 {
			t.Fatalf("file %+v not described", f)
		}
	}
}

// countingPutter counts the puts in flight at once, the most of them, and
// holds each at a gate.
type countingPutter struct {
	Putter
	gate           *sidebyside.Gate
	inFlight, most atomic.Int64
}

func (p *countingPutter) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) (blob.ObjectInfo, error) {
	n := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	for m := p.most.Load(); n > m && !p.most.CompareAndSwap(m, n); m = p.most.Load() {
	}
	if err := p.gate.Wait(ctx); err != nil {
		return blob.ObjectInfo{}, err
	}
	return p.Putter.Put(ctx, key, r, opts)
}

// A batch of many days (a file a day) stores putsAtOnce files at once at
// most: a bucket that stores nothing until that many are in flight gets
// every file, and never more at once.
func TestWriterBoundsPutsAtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, _ := localWriter(t)
	w.Workers = 2
	putter := &countingPutter{Putter: w.Bucket, gate: sidebyside.NewGate(0, putsAtOnce)}
	w.Bucket = putter
	var b Batch
	day := time.Date(2025, 10, 1, 9, 0, 0, 0, time.UTC)
	for i := range 4 * putsAtOnce {
		b.Conversations = append(b.Conversations, Conversation{ID: fmt.Sprintf("c%03d", i), RunID: "r", OrgID: "o",
			ArrivedOn: day.AddDate(0, 0, i), MediaType: "Chat"})
	}
	files, err := w.Write(ctx, "r", b)
	if err != nil || len(files) != 4*putsAtOnce {
		t.Fatalf("%d files, %v", len(files), err)
	}
	if most := putter.most.Load(); most != putsAtOnce {
		t.Fatalf("%d puts at once, want %d", most, putsAtOnce)
	}
}
