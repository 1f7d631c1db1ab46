package results

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/lakegen"
	"github.com/earshot/earshot/internal/testlake"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
	"github.com/earshot/earshot/warehouse/lakedb"
)

// Groups agrees with the current-row rule applied in Go to every row of
// the lake: per team and per agent, the conversations, and each scored
// classifier's count, mean score and hits, for the whole organization and
// one region, with re-run files overlapping the first commit's committed
// after the days' figures were first read and kept.
func TestGroupsMatchEveryRow(t *testing.T) {
	ctx := context.Background()
	l := newRerunLake(t, 5, 11)
	org, r, window := l.org, l.reader, l.window
	var ids []string
	for _, k := range org.Classifiers[len(org.Classifiers)-2:] { // Dead air and the sentiment model
		ids = append(ids, k.ID)
	}
	// The days' figures are read and kept before the second commit, whose
	// files must make them be read again.
	if _, err := r.Groups(ctx, PageQuery{OrgID: org.ID, Window: window}, ByTeam, ids, 1000); err != nil {
		t.Fatal(err)
	}
	l.rerun(t)
	cat := l.cat
	tree, err := cat.People.Hierarchy(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	everyRow := allRows(t, r, org.ID, window)
	for _, nodes := range [][]string{nil, tree.Descendants(org.Regions[0])} {
		for _, by := range []GroupBy{ByTeam, ByAgent} {
			q := PageQuery{OrgID: org.ID, Window: window, NodeIDs: nodes}
			got, err := r.Groups(ctx, q, by, ids, 1000)
			if err != nil {
				t.Fatal(err)
			}
			want := everyRow.groups(by, nodes, ids)
			if len(got) != len(want) || len(got) < 3 {
				t.Fatalf("%s %v: %d groups, every row gives %d", by, nodes != nil, len(got), len(want))
			}
			for i, g := range got {
				if i > 0 && got[i-1].Conversations < g.Conversations {
					t.Fatalf("%s: groups not by conversations, most first", by)
				}
				exp, ok := want[g.Key]
				if !ok || exp.Conversations != g.Conversations {
					t.Fatalf("%s %q: %d conversations, every row gives %d", by, g.Key, g.Conversations, exp.Conversations)
				}
				for _, id := range ids {
					a, b := g.Scores[id], exp.Scores[id]
					if a.Evaluated != b.Evaluated || a.Hits != b.Hits || a.Mean == nil || math.Abs(*a.Mean-*b.Mean) > 1e-9 {
						t.Fatalf("%s %q classifier %s: %+v (mean %v), every row gives %+v (mean %v)", by, g.Key, id, a, deref(a.Mean), b, deref(b.Mean))
					}
				}
			}
			top, err := r.Groups(ctx, q, by, ids, 2)
			if err != nil || len(top) != 2 || top[0].Key != got[0].Key || top[1].Key != got[1].Key {
				t.Fatalf("%s: the top 2 are %v (%v), not the first two of all", by, top, err)
			}
		}
	}
}

// rerunLake is a generated lake of one organization over three days, and
// a second commit over its first two days whose files overlap the first
// commit's ids (re-runs).
type rerunLake struct {
	cat    *catalog.Catalog
	writer *lake.Writer
	orgs   []lakegen.Org
	org    lakegen.Org
	opts   lakegen.Options
	engine *lakedb.DB
	reader *Reader
	window Window // the three whole days
}

func newRerunLake(t *testing.T, classifiers int, seed uint64) *rerunLake {
	t.Helper()
	cat, bucket, dir := testlake.New(t)
	l := &rerunLake{cat: cat, writer: &lake.Writer{Bucket: bucket}, opts: lakegen.Options{Orgs: 1, Conversations: 300, Days: 3,
		Classifiers: classifiers, Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), Seed: seed}}
	var err error
	if l.orgs, err = lakegen.Generate(context.Background(), cat, l.writer, l.opts); err != nil {
		t.Fatal(err)
	}
	l.org = l.orgs[0]
	l.engine = testlake.Engine(t, filepath.Join(dir, "bucket"))
	l.reader = &Reader{Manifest: cat.Manifest, Conversations: cat.Interactions, Lake: l.engine, Figures: cat.Manifest}
	l.window = Window{From: l.opts.Start, To: l.opts.Start.AddDate(0, 0, l.opts.Days).Add(-time.Microsecond)}
	return l
}

// rerun commits the second, overlapping run.
func (l *rerunLake) rerun(t *testing.T) {
	t.Helper()
	again := l.opts
	again.Seed, again.Days, again.Conversations = l.opts.Seed+1, 2, 80
	if err := lakegen.Commit(context.Background(), l.cat, l.writer, l.orgs, again); err != nil {
		t.Fatal(err)
	}
}

func deref(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

type rowConv struct{ id, run, node, agent string }
type rowResult struct {
	conv, run, classifier, result string
	score                         *float64
}

type lakeRows struct {
	convs   []rowConv
	results []rowResult
}

// allRows reads every conversation and result row of the window's files.
func allRows(t *testing.T, r *Reader, org string, w Window) lakeRows {
	ctx := context.Background()
	var out lakeRows
	for _, table := range []string{"conversations", "classifier_results"} {
		files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: org, Table: table, From: w.From, To: w.To})
		if err != nil {
			t.Fatal(err)
		}
		list, err := r.Lake.Files(ctx, catalog.Paths(files))
		if err != nil {
			t.Fatal(err)
		}
		stmt := `SELECT conversation_id, run_id, coalesce(hierarchy_node_id, ''), coalesce(agent_code, '') FROM read_parquet(` + list + `)`
		if table == "classifier_results" {
			stmt = `SELECT conversation_id, run_id, classifier_id, result, score FROM read_parquet(` + list + `)`
		}
		rows, err := r.Lake.QueryContext(ctx, stmt)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			if table == "conversations" {
				var c rowConv
				rows.Scan(&c.id, &c.run, &c.node, &c.agent)
				out.convs = append(out.convs, c)
			} else {
				var x rowResult
				rows.Scan(&x.conv, &x.run, &x.classifier, &x.result, &x.score)
				out.results = append(out.results, x)
			}
		}
		rows.Close()
	}
	return out
}

// groups applies the rule: a conversation's newest run; of its results
// for a classifier, the newest run not older than it.
func (l lakeRows) groups(by GroupBy, nodes []string, ids []string) map[string]Group {
	current := map[string]rowConv{}
	for _, c := range l.convs {
		if cur, ok := current[c.id]; !ok || c.run > cur.run {
			current[c.id] = c
		}
	}
	type key struct{ conv, classifier string }
	best := map[key]rowResult{}
	for _, x := range l.results {
		c, ok := current[x.conv]
		if !ok || x.run < c.run || !slices.Contains(ids, x.classifier) {
			continue
		}
		k := key{x.conv, x.classifier}
		if cur, ok := best[k]; !ok || x.run > cur.run {
			best[k] = x
		}
	}
	out := map[string]Group{}
	sums := map[[2]string]float64{}
	keyOf := func(c rowConv) string {
		if by == ByTeam {
			return c.node
		}
		return c.agent
	}
	for _, c := range current {
		if nodes != nil && !slices.Contains(nodes, c.node) {
			continue
		}
		g, ok := out[keyOf(c)]
		if !ok {
			g = Group{Key: keyOf(c), Scores: map[string]Score{}}
		}
		g.Conversations++
		for _, id := range ids {
			x, ok := best[key{c.id, id}]
			if !ok {
				continue
			}
			s := g.Scores[id]
			s.Evaluated++
			if x.result == "true" {
				s.Hits++
			}
			if x.score != nil {
				sums[[2]string{g.Key, id}] += *x.score
			}
			g.Scores[id] = s
		}
		out[g.Key] = g
	}
	for k, g := range out {
		for id, s := range g.Scores {
			mean := sums[[2]string{k, id}] / float64(s.Evaluated)
			s.Mean = &mean
			g.Scores[id] = s
		}
	}
	return out
}

// currentRow is a conversation's current row with its current result of
// one classifier ("" when none).
type currentRow struct{ node, agent, result string }

// current applies the rule for one classifier, by conversation id.
func (l lakeRows) current(classifier string) map[string]currentRow {
	convs := map[string]rowConv{}
	for _, c := range l.convs {
		if cur, ok := convs[c.id]; !ok || c.run > cur.run {
			convs[c.id] = c
		}
	}
	best := map[string]rowResult{}
	for _, x := range l.results {
		c, ok := convs[x.conv]
		if ok && x.classifier == classifier && x.run >= c.run {
			if cur, ok := best[x.conv]; !ok || x.run > cur.run {
				best[x.conv] = x
			}
		}
	}
	out := map[string]currentRow{}
	for id, c := range convs {
		out[id] = currentRow{node: c.node, agent: c.agent, result: best[id].result}
	}
	return out
}
