package results

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Figures kept in the catalog answer a process that has read nothing yet
// (a restart, another machine) without a statement on the lake, and give
// what the process that read them from the lake gave — also after re-run
// files join the first commit's clusters (read again, the former
// clusters' figures dropped). Figures that do not decode are read from
// the lake again and replaced.
func TestKeptFiguresServeAFreshReader(t *testing.T) {
	ctx := context.Background()
	l := newRerunLake(t, 5, 23)
	var ids []string
	for _, k := range l.org.Classifiers {
		ids = append(ids, k.ID)
	}
	q := PageQuery{OrgID: l.org.ID, Window: l.window}
	answer := func(r *Reader) answers { return dashboardAnswers(t, r, q, ids) }
	fresh := func() (*Reader, *testlake.Counting) {
		lk := &testlake.Counting{DB: l.engine}
		return &Reader{Manifest: l.cat.Manifest, Conversations: l.cat.Interactions, Lake: lk, Figures: l.cat.Manifest}, lk
	}
	keptRows := func() []catalog.KeptFigures {
		t.Helper()
		days := []time.Time{l.window.From, l.window.From.AddDate(0, 0, 1), l.window.From.AddDate(0, 0, 2)}
		kept, err := l.cat.Manifest.KeptFigures(ctx, l.org.ID, days)
		if err != nil {
			t.Fatal(err)
		}
		return kept
	}

	first := answer(l.reader)
	if n := len(keptRows()); n != 3 {
		t.Fatalf("%d figures kept for three days of one commit each", n)
	}
	r, lk := fresh()
	if got := answer(r); !reflect.DeepEqual(got, first) {
		t.Fatalf("a fresh reader's answers differ from the lake's:\n%+v\n%+v", got, first)
	}
	if n := lk.Statements(); n != 0 {
		t.Fatalf("a fresh reader ran %d statements on the lake for kept days", n)
	}

	l.rerun(t)
	again := answer(l.reader)
	if reflect.DeepEqual(again, first) {
		t.Fatal("the re-run changed no figure: the test proves nothing")
	}
	if n := len(keptRows()); n != 3 {
		t.Fatalf("%d figures kept after the re-run joined two days' files into one cluster each; want 3", n)
	}
	r, lk = fresh()
	if got := answer(r); !reflect.DeepEqual(got, again) || lk.Statements() != 0 {
		t.Fatalf("after the re-run a fresh reader ran %d statements and answered\n%+v\nnot\n%+v", lk.Statements(), got, again)
	}

	spoilt := keptRows()[0]
	spoilt.Figures = `{"cells": [["a", "b", "c"]], "conversations": []}`
	var signatures []string
	for _, k := range keptRows() {
		if k.Date.Equal(spoilt.Date) {
			signatures = append(signatures, k.Signature)
		}
	}
	if err := l.cat.Manifest.KeepFigures(ctx, l.org.ID, spoilt.Date, catalog.Stale{AllBut: signatures}, []catalog.KeptFigures{spoilt}); err != nil {
		t.Fatal(err)
	}
	r, lk = fresh()
	if got := answer(r); !reflect.DeepEqual(got, again) || lk.Statements() != 2 {
		t.Fatalf("with a day's figures spoilt a fresh reader ran %d statements (want the day's two) and answered\n%+v\nnot\n%+v", lk.Statements(), got, again)
	}
	r, lk = fresh()
	if answer(r); lk.Statements() != 0 {
		t.Fatal("the spoilt figures were not replaced")
	}
}

// answers are a dashboard's figures: by day, by team and by agent.
type answers struct {
	days          []Day
	teams, agents []Group
}

// dashboardAnswers reads a dashboard's figures over a window of three
// days, its scores' means to the ninth place (the lake's engine sums
// scores in any order).
func dashboardAnswers(t *testing.T, r *Reader, q PageQuery, ids []string) answers {
	t.Helper()
	ctx := context.Background()
	var a answers
	var err error
	if a.days, err = r.Daily(ctx, q, ids); err != nil {
		t.Fatal(err)
	}
	if a.teams, err = r.Groups(ctx, q, ByTeam, ids, 1000); err != nil {
		t.Fatal(err)
	}
	if a.agents, err = r.Groups(ctx, q, ByAgent, ids, 1000); err != nil {
		t.Fatal(err)
	}
	if len(a.days) != 3 || len(a.teams) < 3 {
		t.Fatalf("%d days and %d teams of the generated lake", len(a.days), len(a.teams))
	}
	for _, g := range append(slices.Clip(a.teams), a.agents...) {
		for id, s := range g.Scores {
			if s.Mean != nil {
				m := math.Round(*s.Mean*1e9) / 1e9
				s.Mean = &m
				g.Scores[id] = s
			}
		}
	}
	return a
}

// capturingWriter writes batches and remembers each with its files.
type capturingWriter struct {
	*lake.Writer
	batches []lake.Batch
	files   [][]catalog.LakeFile
}

func (w *capturingWriter) Write(ctx context.Context, runID string, b lake.Batch) ([]catalog.LakeFile, error) {
	files, err := w.Writer.Write(ctx, runID, b)
	w.batches, w.files = append(w.batches, b), append(w.files, files)
	return files, err
}

// The figures a job keeps from the batch it committed, summed from its
// rows without a statement on the lake, are those the lake gives, for
// every organization of the batch (two here, each batch a day of both).
func TestFiguresKeptFromBatchesMatchTheLake(t *testing.T) {
	ctx := context.Background()
	cat, bucket, dir := testlake.New(t)
	w := &capturingWriter{Writer: &lake.Writer{Bucket: bucket}}
	start := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	orgs, err := lakegen.Generate(ctx, cat, w, lakegen.Options{Orgs: 2, Conversations: 600, Days: 3, Classifiers: 5, Start: start, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	engine := testlake.Engine(t, filepath.Join(dir, "bucket"))
	keeper := &testlake.Counting{DB: engine}
	r := &Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: keeper, Figures: cat.Manifest}
	for i := range w.batches {
		if err := r.KeepFigures(ctx, w.files[i], &w.batches[i]); err != nil {
			t.Fatal(err)
		}
	}
	if n := keeper.Statements(); n != 0 {
		t.Fatalf("keeping a batch's figures ran %d statements on the lake", n)
	}
	window := Window{From: start, To: start.AddDate(0, 0, 3).Add(-time.Microsecond)}
	for _, org := range orgs {
		var ids []string
		for _, k := range org.Classifiers {
			ids = append(ids, k.ID)
		}
		q := PageQuery{OrgID: org.ID, Window: window}
		fromLake := dashboardAnswers(t, &Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: engine}, q, ids)
		counting := &testlake.Counting{DB: engine}
		kept := dashboardAnswers(t, &Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: counting, Figures: cat.Manifest}, q, ids)
		if !reflect.DeepEqual(kept, fromLake) || counting.Statements() != 0 {
			t.Fatalf("organization %s: kept figures (%d statements on the lake)\n%+v\nthe lake's\n%+v", org.ID, counting.Statements(), kept, fromLake)
		}
	}
}

// commitsLake is a lake of one organization's day whose commits keep
// their figures as the jobs do.
type commitsLake struct {
	t      *testing.T
	cat    *catalog.Catalog
	writer *lake.Writer
	lake   *testlake.Counting
	reader *Reader
	org    string
	day    time.Time
}

func newCommitsLake(t *testing.T) *commitsLake {
	cat, bucket, dir := testlake.New(t)
	org, err := cat.Orgs.CreateOrganization(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	lk := &testlake.Counting{DB: testlake.Engine(t, filepath.Join(dir, "bucket"))}
	return &commitsLake{t: t, cat: cat, writer: &lake.Writer{Bucket: bucket}, lake: lk, org: org.ID,
		reader: &Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: lk, Figures: cat.Manifest},
		day:    time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)}
}

// batch is a conversation of each id, with one result, written by run.
func (l *commitsLake) batch(run string, ids ...string) lake.Batch {
	var b lake.Batch
	for _, id := range ids {
		b.Conversations = append(b.Conversations, lake.Conversation{ID: id, RunID: run, OrgID: l.org, MediaType: "Chat",
			ArrivedOn: l.day.Add(time.Hour), ExtendedMetadata: "{}", TranscriptMode: "chat"})
		b.ClassifierResults = append(b.ClassifierResults, lake.ClassifierResult{ConversationID: id, RunID: run, OrgID: l.org,
			ArrivedOn: l.day.Add(time.Hour), ClassifierID: "k", Result: "true"})
	}
	return b
}

// commit writes and commits a batch, its figures not kept yet.
func (l *commitsLake) commit(run string, b lake.Batch) []catalog.LakeFile {
	l.t.Helper()
	files, err := l.writer.Write(context.Background(), run, b)
	if err != nil {
		l.t.Fatal(err)
	}
	if err := l.cat.Interactions.CommitIngest(context.Background(), catalog.IngestCommit{RunID: run, Owner: "w", Files: files}); err != nil {
		l.t.Fatal(err)
	}
	return files
}

// keep keeps a commit's figures, as the job does after it.
func (l *commitsLake) keep(files []catalog.LakeFile, b *lake.Batch) {
	l.t.Helper()
	if err := l.reader.KeepFigures(context.Background(), files, b); err != nil {
		l.t.Fatal(err)
	}
}

// kept are the signatures of the day's kept figures.
func (l *commitsLake) kept() []string {
	l.t.Helper()
	kept, err := l.cat.Manifest.KeptFigures(context.Background(), l.org, []time.Time{l.day})
	if err != nil {
		l.t.Fatal(err)
	}
	var out []string
	for _, k := range kept {
		out = append(out, k.Signature)
	}
	return out
}

// keptAnswerTheDay checks that the day's kept figures answer it as the
// lake does, without a statement on the lake, and count its conversations.
func (l *commitsLake) keptAnswerTheDay(conversations int64) {
	l.t.Helper()
	ctx := context.Background()
	window := Window{From: l.day, To: l.day.AddDate(0, 0, 1).Add(-time.Microsecond)}
	q := PageQuery{OrgID: l.org, Window: window}
	fromLake, err := (&Reader{Manifest: l.cat.Manifest, Conversations: l.cat.Interactions, Lake: l.lake.DB}).Daily(ctx, q, []string{"k"})
	if err != nil {
		l.t.Fatal(err)
	}
	counting := &testlake.Counting{DB: l.lake.DB}
	got, err := (&Reader{Manifest: l.cat.Manifest, Conversations: l.cat.Interactions, Lake: counting, Figures: l.cat.Manifest}).Daily(ctx, q, []string{"k"})
	if err != nil || !reflect.DeepEqual(got, fromLake) || counting.Statements() != 0 || len(got) != 1 || got[0].Conversations != conversations {
		l.t.Fatalf("kept figures %+v (%v, %d statements on the lake), the lake's %+v", got, err, counting.Statements(), fromLake)
	}
}

// A commit keeps the figures of its own clusters and leaves those of
// another commit of the same day, committed beside it, to that one: it
// reads nothing from the lake for them.
func TestCommitsKeepTheirOwnClusters(t *testing.T) {
	l := newCommitsLake(t)
	batches := []lake.Batch{l.batch("r1", "a1", "a2"), l.batch("r1", "b1", "b2")}
	files := make([][]catalog.LakeFile, len(batches))
	for i, b := range batches { // both committed before either keeps its figures
		files[i] = l.commit("r1", b)
	}
	for i := len(batches) - 1; i >= 0; i-- { // the later commit keeps its figures first
		l.keep(files[i], &batches[i])
		if n := len(l.kept()); n != len(batches)-i {
			t.Fatalf("after %d commits kept their figures, %d clusters' are kept", len(batches)-i, n)
		}
	}
	if n := l.lake.Statements(); n != 0 {
		t.Fatalf("keeping the commits' figures ran %d statements on the lake", n)
	}
}

// A commit drops the figures it makes stale and no others: a re-run's
// those of the cluster it joined, a compaction (the day one cluster, all
// its own) every other of the day. What stays kept answers the day as
// the lake does.
func TestCommitsDropTheFiguresTheyMakeStale(t *testing.T) {
	ctx := context.Background()
	l := newCommitsLake(t)
	first, beside := l.batch("r1", "a1", "a2"), l.batch("r1", "c1", "c2")
	firstFiles := l.commit("r1", first)
	l.keep(firstFiles, &first)
	joined := l.kept()
	besideFiles := l.commit("r1", beside)
	l.keep(besideFiles, &beside)
	if n := len(l.kept()); n != 2 {
		t.Fatalf("%d clusters' figures kept after two commits", n)
	}

	rerun := l.batch("r2", "a1", "a2")
	rerunFiles := l.commit("r2", rerun)
	l.keep(rerunFiles, &rerun)
	if kept := l.kept(); len(kept) != 2 || slices.Contains(kept, joined[0]) {
		t.Fatalf("after a re-run joined the first commit's cluster: %d kept, the joined one's still among them: %v",
			len(kept), slices.Contains(kept, joined[0]))
	}

	// Compaction: one file a table for the day's current rows.
	all, err := l.cat.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: l.org})
	if err != nil {
		t.Fatal(err)
	}
	compacted := l.batch("r2", "a1", "a2")
	more := l.batch("r1", "c1", "c2")
	compacted.Conversations = append(compacted.Conversations, more.Conversations...)
	compacted.ClassifierResults = append(compacted.ClassifierResults, more.ClassifierResults...)
	files, err := l.writer.Write(ctx, "compact", compacted)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.cat.Manifest.SwapLakeFiles(ctx, "compact", catalog.Paths(all), files); err != nil {
		t.Fatal(err)
	}
	l.keep(files, nil)
	if n := len(l.kept()); n != 1 {
		t.Fatalf("%d clusters' figures kept for a compacted day", n)
	}
	l.keptAnswerTheDay(4)
}

// A commit's cluster reaches through files that overlap one another, not
// only those that overlap its own, and no further; what stays kept
// answers the day as the lake does.
func TestACommitsClusterReachesThroughOverlaps(t *testing.T) {
	ctx := context.Background()
	l := newCommitsLake(t)
	var before []string // the files of the cluster the commit joins
	for _, ids := range [][]string{{"a", "c"}, {"h", "l"}, {"k", "n"}, {"t", "v"}} {
		b := l.batch("r1", ids...)
		files := l.commit("r1", b)
		l.keep(files, &b)
		if ids[0] == "h" || ids[0] == "k" {
			before = append(before, catalog.Paths(files)...)
		}
	}
	if n := len(l.kept()); n != 3 {
		t.Fatalf("%d clusters' figures kept for three clusters", n)
	}
	joining := l.batch("r2", "m", "p")
	files := l.commit("r2", joining)
	got, dayFiles, err := l.reader.ownFiles(ctx, l.org, l.day, files)
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(before), catalog.Paths(files)...)
	if !sameSet(catalog.Paths(got), want) || dayFiles != 10 {
		t.Fatalf("own files %v of a day of %d files; want %v of 10", catalog.Paths(got), dayFiles, want)
	}
	l.keep(files, &joining)
	if n := len(l.kept()); n != 3 {
		t.Fatalf("%d clusters' figures kept after a commit joined one of three", n)
	}
	l.keptAnswerTheDay(10)
}

func sameSet(a, b []string) bool {
	return reflect.DeepEqual(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// A batch's rows give a cluster's figures only when the cluster is the
// batch's files alone and the batch holds each conversation, and each of
// its results, once.
func TestBatchRowsGiveOnlyTheirOwnClusters(t *testing.T) {
	day := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	node, agent := "n1", "a1"
	score := 0.5
	conv := func(id string) lake.Conversation {
		return lake.Conversation{ID: id, RunID: "r1", OrgID: "o", MediaType: "Chat", ArrivedOn: day.Add(time.Hour), HierarchyNodeID: &node, AgentCode: &agent}
	}
	result := func(id, classifier, value string) lake.ClassifierResult {
		return lake.ClassifierResult{ConversationID: id, RunID: "r1", OrgID: "o", ArrivedOn: day.Add(time.Hour), ClassifierID: classifier, Result: value, Score: &score}
	}
	batch := lake.Batch{
		Conversations:     []lake.Conversation{conv("c1"), conv("c2"), conv("c9")},
		ClassifierResults: []lake.ClassifierResult{result("c1", "k", "true"), result("c2", "k", "false"), result("c9", "k", "true")},
	}
	ours := cluster{files: []catalog.LakeFile{{Path: "conv", MinID: "c1", MaxID: "c2"}, {Path: "res", MinID: "c1", MaxID: "c2"}}}
	rows := &batchRows{batch: &batch, written: map[string]bool{"conv": true, "res": true}}
	f := rows.figures("o", day, ours)
	if f == nil || !reflect.DeepEqual(f.conversations, []int64{2}) || !reflect.DeepEqual(f.results["k"], []cellSums{{0, resultSums{evaluated: 2, hits: 1, scored: 2, scoreSum: 1}}}) {
		t.Fatalf("the batch's own cluster (c9 out of its range): %+v", f)
	}
	for name, c := range map[string]struct {
		rows    *batchRows
		cluster cluster
	}{
		"no batch":             {nil, ours},
		"another's file in it": {rows, cluster{files: append(slices.Clone(ours.files), catalog.LakeFile{Path: "older", MinID: "c0", MaxID: "c1"})}},
		"a conversation twice": {&batchRows{batch: &lake.Batch{Conversations: []lake.Conversation{conv("c1"), conv("c1")}}, written: rows.written}, ours},
		"a result twice": {&batchRows{batch: &lake.Batch{Conversations: batch.Conversations,
			ClassifierResults: []lake.ClassifierResult{result("c1", "k", "true"), result("c1", "k", "false")}}, written: rows.written}, ours},
	} {
		if f := c.rows.figures("o", day, c.cluster); f != nil {
			t.Errorf("%s: figures %+v, want none (read from the lake)", name, f)
		}
	}
	if f := rows.figures("o", day.AddDate(0, 0, 1), ours); f == nil || len(f.cells) != 0 {
		t.Fatalf("another day's figures from the batch: %+v", f)
	}
}

// A day's figures are the sum of its clusters', however its files group.
func TestClustersOfADay(t *testing.T) {
	file := func(path, table, lo, hi string) catalog.LakeFile {
		return catalog.LakeFile{Path: path, Table: table, MinID: lo, MaxID: hi}
	}
	for _, c := range []struct {
		name  string
		files []catalog.LakeFile
		want  [][]string
	}{
		{"one batch", []catalog.LakeFile{file("c1", "conversations", "a", "f"), file("r1", "classifier_results", "a", "f")}, [][]string{{"c1", "r1"}}},
		{"two batches", []catalog.LakeFile{file("c2", "conversations", "g", "k"), file("c1", "conversations", "a", "f"),
			file("r1", "classifier_results", "a", "f"), file("r2", "classifier_results", "g", "k")}, [][]string{{"c1", "r1"}, {"c2", "r2"}}},
		{"a reclassification across them", []catalog.LakeFile{file("c1", "conversations", "a", "f"), file("r1", "classifier_results", "a", "f"),
			file("c2", "conversations", "g", "k"), file("r2", "classifier_results", "g", "k"), file("r3", "classifier_results", "e", "h"),
			file("c3", "conversations", "m", "p")}, [][]string{{"c1", "r1", "r3", "c2", "r2"}, {"c3"}}},
		{"chunks split apart in each table", []catalog.LakeFile{file("c1a", "conversations", "a", "c"), file("c1b", "conversations", "d", "f"),
			file("r1a", "classifier_results", "a", "d"), file("r1b", "classifier_results", "e", "f")}, [][]string{{"c1a", "r1a", "c1b", "r1b"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got [][]string
			seen := map[string]bool{}
			for _, cl := range clustersOf(c.files) {
				got = append(got, catalog.Paths(cl.files))
				if cl.signature != signature(cl.files) || seen[cl.signature] {
					t.Fatalf("cluster %v: signature %s", catalog.Paths(cl.files), cl.signature)
				}
				seen[cl.signature] = true
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("clusters %v, want %v", got, c.want)
			}
		})
	}
}

// Kept figures read back as they were written.
func TestFiguresEncodeAndDecode(t *testing.T) {
	f := &dayFigures{
		cells:         []cell{{"n1", "a1", "Call"}, {"", "", "Chat"}},
		conversations: []int64{7, 3},
		results: map[string][]cellSums{
			"k1": {{0, resultSums{evaluated: 7, hits: 2, scored: 7, scoreSum: 0.1 + 0.2}}, {1, resultSums{evaluated: 3}}},
			"k2": {},
		},
	}
	s, err := encodeFigures(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeFigures(s, newInterner())
	if err != nil {
		t.Fatal(err)
	}
	f.results["k2"] = []cellSums{}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("decoded %+v, want %+v (%s)", got, f, s)
	}
	for _, bad := range []string{`{`, `{"cells": [["a", "b", "c"]], "conversations": []}`,
		`{"cells": [["a", "b", "c"]], "conversations": [1], "results": {"k": {"cell": [1], "evaluated": [1], "hits": [0], "scored": [0], "score_sum": [0]}}}`,
		`{"cells": [], "conversations": [], "results": {"k": {"cell": [0, 0], "evaluated": [1]}}}`} {
		if _, err := decodeFigures(bad, newInterner()); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// Whatever a catalog row holds, decoding it fails or gives figures whose
// every cell index is in range, and which read back as they were.
func FuzzDecodeFigures(f *testing.F) {
	f.Add(`{"cells": [["n", "a", "Chat"]], "conversations": [2], "results": {"k": {"cell": [0], "evaluated": [2], "hits": [1], "scored": [2], "score_sum": [0.5]}}}`)
	f.Add(`{"cells": [], "conversations": [], "results": {}}`)
	f.Add(`{"cells": [["a", "b", "c"]], "conversations": [1], "results": {"k": {"cell": [-1], "evaluated": [1], "hits": [0], "scored": [0], "score_sum": [0]}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decodeFigures(s, newInterner())
		if err != nil {
			return
		}
		if len(d.conversations) != len(d.cells) {
			t.Fatalf("%d cells, %d counts", len(d.cells), len(d.conversations))
		}
		for id, sums := range d.results {
			for _, x := range sums {
				if x.cell < 0 || x.cell >= len(d.cells) {
					t.Fatalf("classifier %s: cell %d of %d", id, x.cell, len(d.cells))
				}
			}
		}
		again, err := encodeFigures(d)
		if err != nil {
			return // a score sum JSON cannot hold
		}
		back, err := decodeFigures(again, newInterner())
		if err != nil || !reflect.DeepEqual(back, d) {
			t.Fatalf("%s read back as %+v (%v), not %+v", again, back, err, d)
		}
	})
}

// The days kept in memory stay within their budget, the least recently
// used out first, and a day kept again replaces itself.
func TestDayCacheKeepsWithinItsBudget(t *testing.T) {
	day := func(cells int) *dayFigures {
		f := &dayFigures{cells: make([]cell, cells), conversations: make([]int64, cells), results: map[string][]cellSums{"k": make([]cellSums, cells)}}
		return f
	}
	one := day(10).size()
	c := dayCache{limit: 3 * one}
	key := func(i int) dayKey { return dayKey{"o", time.Date(2025, 10, i, 0, 0, 0, 0, time.UTC)} }
	for i := 1; i <= 3; i++ {
		c.put(key(i), "s", day(10))
	}
	c.get(key(1), "s") // the first day now the most recently used
	c.put(key(4), "s", day(10))
	if c.get(key(2), "s") != nil || c.get(key(1), "s") == nil || c.get(key(3), "s") == nil || c.get(key(4), "s") == nil || c.bytes != 3*one {
		t.Fatalf("after a fourth day: %d bytes kept of %d, the least recently used not the one out", c.bytes, c.limit)
	}
	c.put(key(4), "s2", day(10))
	if c.order.Len() != 3 || c.bytes != 3*one || c.get(key(4), "s") != nil || c.get(key(4), "s2") == nil {
		t.Fatalf("a day kept again: %d days, %d bytes", c.order.Len(), c.bytes)
	}
	c.put(key(5), "s", day(100)) // larger than the budget: kept alone
	if c.order.Len() != 1 || c.get(key(5), "s") == nil {
		t.Fatalf("a day larger than the budget: %d days kept", c.order.Len())
	}
}
