package results

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// FigureStore keeps clusters' figures for every process and after a
// restart (catalog.ManifestStore).
type FigureStore interface {
	KeptFigures(ctx context.Context, orgID string, days []time.Time) ([]catalog.KeptFigures, error)
	KeptSignatures(ctx context.Context, orgID string, day time.Time, signatures []string) ([]string, error)
	KeepFigures(ctx context.Context, orgID string, day time.Time, stale catalog.Stale, kept []catalog.KeptFigures) error
}

// KeepFigures keeps the figures of the clusters that newly committed
// files are part of, where not kept yet — called by the jobs after each
// commit, so that no dashboard waits on the lake for them. A cluster made
// only of the files of batch (the rows just written, or nil) is summed
// from its rows; one that holds earlier files too is read from the lake.
// Another commit's clusters of the same days are left to it: where
// commits run side by side (the parts of archives), each would otherwise
// read the others' from the lake before they kept them, and a dashboard
// reads (and keeps) any that a commit did not.
func (r *Reader) KeepFigures(ctx context.Context, written []catalog.LakeFile, batch *lake.Batch) error {
	if r.Figures == nil {
		return nil
	}
	days := map[string][]time.Time{}
	for _, f := range written {
		if (f.Table == "conversations" || f.Table == "classifier_results") && !slices.Contains(days[f.OrgID], f.Date.UTC()) {
			days[f.OrgID] = append(days[f.OrgID], f.Date.UTC())
		}
	}
	rows := batchRows{batch: batch, written: map[string]bool{}}
	for _, f := range written {
		rows.written[f.Path] = true
	}
	for org, ds := range days {
		for _, day := range ds {
			fs, dayFiles, err := r.ownFiles(ctx, org, day, written)
			if err != nil {
				return err
			}
			clusters, stale := rows.ownClusters(fs, dayFiles)
			kept, err := r.Figures.KeptSignatures(ctx, org, day, signaturesOf(clusters))
			if err != nil {
				return err
			}
			var unread []int
			for i, c := range clusters {
				if !slices.Contains(kept, c.signature) {
					unread = append(unread, i)
				}
			}
			if err := r.fillClusters(ctx, org, day, clusters, unread, make([]*dayFigures, len(clusters)), &rows, stale); err != nil {
				return fmt.Errorf("keep the figures of organization %s: %w", org, err)
			}
		}
	}
	return nil
}

// ownFiles are the files of an organization's day that share a cluster
// with a file written, or lie between two such clusters — no more of the
// day's files than that, which would make every commit's cost grow with
// the day —, and how many files of the two tables the day has in all.
// They are the files whose ids overlap the range of those written,
// widened to the ranges of the files found until it holds them all: a
// file outside it overlaps none of them.
func (r *Reader) ownFiles(ctx context.Context, org string, day time.Time, written []catalog.LakeFile) ([]catalog.LakeFile, int, error) {
	var lo, hi string
	for _, f := range written {
		if f.OrgID == org && f.Date.UTC().Equal(day) && (f.Table == "conversations" || f.Table == "classifier_results") {
			if lo == "" || f.MinID < lo {
				lo = f.MinID
			}
			hi = max(hi, f.MaxID)
		}
	}
	for {
		files, err := r.figureFiles(ctx, catalog.ManifestQuery{OrgID: org, Dates: []time.Time{day}, MinID: lo, MaxID: hi})
		if err != nil {
			return nil, 0, err
		}
		wider := false
		for _, f := range files {
			if f.MinID < lo || f.MaxID > hi {
				lo, hi, wider = min(lo, f.MinID), max(hi, f.MaxID), true
			}
		}
		if wider {
			continue
		}
		// Counted after the files were listed: an ingest only adds files,
		// so a count that matches theirs means the day has no others.
		n := 0
		for _, table := range []string{"conversations", "classifier_results"} {
			c, err := r.Manifest.ManifestCount(ctx, catalog.ManifestQuery{OrgID: org, Table: table, Dates: []time.Time{day}})
			if err != nil {
				return nil, 0, err
			}
			n += c
		}
		return files, n, nil
	}
}

// keptFigures are the figures kept in the catalog for an organization's
// days with a wanted signature (those of the days' current clusters), by
// signature (none without a store). Figures that do not decode are left
// out, to be read again and replaced.
func (r *Reader) keptFigures(ctx context.Context, org string, days []time.Time, wanted map[string]bool) (map[string]*dayFigures, error) {
	out := map[string]*dayFigures{}
	if r.Figures == nil {
		return out, nil
	}
	all, err := r.Figures.KeptFigures(ctx, org, days)
	if err != nil {
		return nil, err
	}
	kept := slices.DeleteFunc(all, func(k catalog.KeptFigures) bool { return !wanted[k.Signature] })
	// Decoding is most of the time of a first dashboard over many days:
	// the days are decoded on every core.
	decoded := make([]*dayFigures, len(kept))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range kept {
		g.Go(func() error {
			decoded[i], _ = decodeFigures(kept[i].Figures, newInterner())
			return nil
		})
	}
	g.Wait()
	for i, f := range decoded {
		if f != nil {
			out[kept[i].Signature] = f
		}
	}
	return out, nil
}

// fillClusters sums, into parts, the figures of the clusters at the
// given indexes of an organization's day — from a batch's rows when they
// are its alone, else from the lake — and keeps them, dropping the stale
// ones.
func (r *Reader) fillClusters(ctx context.Context, org string, day time.Time, clusters []cluster, indexes []int, parts []*dayFigures, rows *batchRows, stale catalog.Stale) error {
	var fromLake []int
	for _, i := range indexes {
		if parts[i] = rows.figures(org, day, clusters[i]); parts[i] == nil {
			fromLake = append(fromLake, i)
		}
	}
	if err := r.readClusters(ctx, clusters, fromLake, parts); err != nil {
		return err
	}
	if r.Figures == nil || len(indexes) == 0 {
		return nil
	}
	kept := make([]catalog.KeptFigures, 0, len(indexes))
	for _, i := range indexes {
		encoded, err := encodeFigures(parts[i])
		if err != nil {
			return err
		}
		kept = append(kept, catalog.KeptFigures{Date: day, Signature: clusters[i].signature, Figures: encoded})
	}
	return r.Figures.KeepFigures(ctx, org, day, stale, kept)
}

// keptForm is the JSON of a cluster's figures: columns rather than
// objects, to keep them small.
type keptForm struct {
	Cells         [][3]string            `json:"cells"` // node, agent, media type
	Conversations []int64                `json:"conversations"`
	Results       map[string]keptResults `json:"results"` // by classifier
}

type keptResults struct {
	Cell      []int     `json:"cell"`
	Evaluated []int64   `json:"evaluated"`
	Hits      []int64   `json:"hits"`
	Scored    []int64   `json:"scored"`
	ScoreSum  []float64 `json:"score_sum"`
}

func encodeFigures(f *dayFigures) (string, error) {
	form := keptForm{Cells: make([][3]string, len(f.cells)), Conversations: f.conversations, Results: map[string]keptResults{}}
	for i, c := range f.cells {
		form.Cells[i] = [3]string{c.node, c.agent, c.media}
	}
	for id, sums := range f.results {
		var k keptResults
		for _, s := range sums {
			k.Cell, k.Evaluated, k.Hits = append(k.Cell, s.cell), append(k.Evaluated, s.evaluated), append(k.Hits, s.hits)
			k.Scored, k.ScoreSum = append(k.Scored, s.scored), append(k.ScoreSum, s.scoreSum)
		}
		form.Results[id] = k
	}
	b, err := json.Marshal(form)
	return string(b), err
}

// decodeFigures reads figures kept by encodeFigures, refusing any whose
// columns disagree.
func decodeFigures(s string, in *interner) (*dayFigures, error) {
	// The fast decoder reads past the end of some malformed input (a key
	// cut in an escape), and keeps bytes that are not UTF-8 where encoding
	// writes U+FFFD: only well-formed JSON in UTF-8, as encodeFigures
	// writes it, reaches it.
	if !utf8.ValidString(s) || !stdjson.Valid([]byte(s)) {
		return nil, errors.New("the kept figures are not JSON")
	}
	var form keptForm
	if err := json.Unmarshal([]byte(s), &form); err != nil {
		return nil, err
	}
	if len(form.Conversations) != len(form.Cells) {
		return nil, fmt.Errorf("%d cells and %d counts", len(form.Cells), len(form.Conversations))
	}
	f := &dayFigures{cells: make([]cell, len(form.Cells)), conversations: form.Conversations, results: make(map[string][]cellSums, len(form.Results))}
	if f.conversations == nil {
		f.conversations = []int64{}
	}
	for i, c := range form.Cells {
		f.cells[i] = cell{in.of(c[0]), in.of(c[1]), in.of(c[2])}
	}
	for id, k := range form.Results {
		n := len(k.Cell)
		if len(k.Evaluated) != n || len(k.Hits) != n || len(k.Scored) != n || len(k.ScoreSum) != n {
			return nil, fmt.Errorf("classifier %s: columns of unequal lengths", id)
		}
		sums := make([]cellSums, n)
		for j := range n {
			if k.Cell[j] < 0 || k.Cell[j] >= len(f.cells) {
				return nil, fmt.Errorf("classifier %s: cell %d of %d", id, k.Cell[j], len(f.cells))
			}
			sums[j] = cellSums{k.Cell[j], resultSums{evaluated: k.Evaluated[j], hits: k.Hits[j], scored: k.Scored[j], scoreSum: k.ScoreSum[j]}}
		}
		f.results[in.of(id)] = sums
	}
	return f, nil
}
