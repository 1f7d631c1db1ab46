package results

import (
	"container/list"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"slices"
	"sync"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// A dashboard's figures over whole days are sums of each day's figures at
// the finest grain it asks for — hierarchy node, agent and media type —,
// and a day's figures change only when its files do. So each
// organization's day is read from the lake once for its set of files
// (the current rows by the rule of Daily) and kept in memory; a dashboard
// over cached days is then a sum in Go. A day whose files changed (an
// ingest, a re-run, a compaction) is read again.

// maxCachedDays bounds the days kept, least recently used first out.
const maxCachedDays = 2000

// cell is a node's, agent's and media type's share of a day.
type cell struct {
	node, agent, media string
}

// dayFigures are one organization's day: its cells and their
// conversations, and by classifier the cells' current results — flat
// slices, so that summing many days is a walk over memory.
type dayFigures struct {
	cells         []cell
	conversations []int64 // by cell
	results       map[string][]cellSums
	index         map[cell]int // while reading
}

// cellSums are a classifier's current results in one cell: how many,
// how many true, and their scores' sum and count.
type cellSums struct {
	cell int
	resultSums
}

type resultSums struct {
	evaluated, hits, scored int64
	scoreSum                float64
}

func (s *resultSums) add(o resultSums) {
	s.evaluated, s.hits, s.scored, s.scoreSum = s.evaluated+o.evaluated, s.hits+o.hits, s.scored+o.scored, s.scoreSum+o.scoreSum
}

// cellOf is the index of a cell, added when new.
func (d *dayFigures) cellOf(c cell) int {
	i, ok := d.index[c]
	if !ok {
		i = len(d.cells)
		d.index[c] = i
		d.cells, d.conversations = append(d.cells, c), append(d.conversations, 0)
	}
	return i
}

// visible is which cells a query sees.
func (d *dayFigures) visible(sees func(cell) bool) []bool {
	out := make([]bool, len(d.cells))
	for i, c := range d.cells {
		out[i] = sees(c)
	}
	return out
}

type dayKey struct {
	org string
	day time.Time
}

type cachedDay struct {
	key       dayKey
	signature string // of the day's files when read
	figures   *dayFigures
}

// dayCache keeps days' figures, least recently used first out.
type dayCache struct {
	mu    sync.Mutex
	order *list.List // of *cachedDay, most recent first
	byKey map[dayKey]*list.Element
}

func (c *dayCache) get(k dayKey, signature string) *dayFigures {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		return nil
	}
	e, ok := c.byKey[k]
	if !ok || e.Value.(*cachedDay).signature != signature {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedDay).figures
}

func (c *dayCache) put(k dayKey, signature string, f *dayFigures) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey, c.order = map[dayKey]*list.Element{}, list.New()
	}
	if e, ok := c.byKey[k]; ok {
		e.Value = &cachedDay{key: k, signature: signature, figures: f}
		c.order.MoveToFront(e)
		return
	}
	c.byKey[k] = c.order.PushFront(&cachedDay{key: k, signature: signature, figures: f})
	for c.order.Len() > maxCachedDays {
		last := c.order.Back()
		delete(c.byKey, last.Value.(*cachedDay).key)
		c.order.Remove(last)
	}
}

// wholeDays reports whether a window is whole arrival days, which the
// cache can answer.
func (w Window) wholeDays() bool {
	day := 24 * time.Hour
	return !w.ByInteraction && w.From.Equal(w.From.Truncate(day)) && w.To.Add(time.Microsecond).Equal(w.To.Add(time.Microsecond).Truncate(day))
}

// figuresByDay gives the figures of each day of q's (whole-day) window
// that has conversations, reading from the lake the days not cached for
// their current files.
func (r *Reader) figuresByDay(ctx context.Context, q PageQuery) (map[time.Time]*dayFigures, error) {
	convFiles, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "conversations", From: q.From, To: q.To})
	if err != nil || len(convFiles) == 0 {
		return nil, err
	}
	resultFiles, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "classifier_results", From: q.From, To: q.To})
	if err != nil {
		return nil, err
	}
	files := map[time.Time][]catalog.LakeFile{}
	for _, f := range append(convFiles, resultFiles...) {
		files[f.Date.UTC()] = append(files[f.Date.UTC()], f)
	}
	out := map[time.Time]*dayFigures{}
	signatures := map[time.Time]string{}
	var missing []catalog.LakeFile
	for day, fs := range files {
		signatures[day] = signature(fs)
		if f := r.days.get(dayKey{q.OrgID, day}, signatures[day]); f != nil {
			out[day] = f
			continue
		}
		missing = append(missing, fs...)
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := r.readDays(ctx, missing)
	if err != nil {
		return nil, err
	}
	for day, f := range read {
		r.days.put(dayKey{q.OrgID, day}, signatures[day], f)
		out[day] = f
	}
	return out, nil
}

// signature names a day's set of files.
func signature(files []catalog.LakeFile) string {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readDays reads whole days' figures from their files: two statements.
func (r *Reader) readDays(ctx context.Context, files []catalog.LakeFile) (map[time.Time]*dayFigures, error) {
	var convPaths, resultPaths []string
	for _, f := range files {
		if f.Table == "conversations" {
			convPaths = append(convPaths, f.Path)
		} else {
			resultPaths = append(resultPaths, f.Path)
		}
	}
	out := map[time.Time]*dayFigures{}
	if len(convPaths) == 0 {
		return out, nil
	}
	convList, err := r.Lake.Files(ctx, convPaths)
	if err != nil {
		return nil, err
	}
	conv := currentConversationsSQL(convList, `CAST(arrived_on AS DATE) AS day, coalesce(hierarchy_node_id, '') AS node,
		coalesce(agent_code, '') AS agent, media_type AS media`, "")
	in := newInterner()
	dayOf := func(t time.Time) *dayFigures {
		t = t.UTC()
		if out[t] == nil {
			out[t] = &dayFigures{results: map[string][]cellSums{}, index: map[cell]int{}}
		}
		return out[t]
	}
	rows, err := r.Lake.QueryContext(ctx, `SELECT day, node, agent, media, count(*) FROM (`+conv+`) GROUP BY ALL`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var day time.Time
		var c cell
		var n int64
		if err := rows.Scan(&day, &c.node, &c.agent, &c.media, &n); err != nil {
			rows.Close()
			return nil, err
		}
		d := dayOf(day)
		d.conversations[d.cellOf(cell{in.of(c.node), in.of(c.agent), in.of(c.media)})] += n
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(resultPaths) == 0 {
		return out, err
	}
	resultList, err := r.Lake.Files(ctx, resultPaths)
	if err != nil {
		return nil, err
	}
	res := currentResultsSQL(resultList, `c.day, c.node, c.agent, c.media, r.classifier_id, r.result, r.score`, "")
	rows, err = r.Lake.QueryContext(ctx, `WITH conv AS (`+conv+`), res AS (`+res+`)
		SELECT day, node, agent, media, classifier_id, count(*), count(*) FILTER (WHERE result = 'true'), coalesce(sum(score), 0), count(score)
		FROM res GROUP BY ALL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var day time.Time
		var c cell
		var classifier string
		var s resultSums
		var sum sql.NullFloat64
		if err := rows.Scan(&day, &c.node, &c.agent, &c.media, &classifier, &s.evaluated, &s.hits, &sum, &s.scored); err != nil {
			return nil, err
		}
		s.scoreSum = sum.Float64
		d := dayOf(day)
		classifier = in.of(classifier)
		d.results[classifier] = append(d.results[classifier], cellSums{d.cellOf(cell{in.of(c.node), in.of(c.agent), in.of(c.media)}), s})
	}
	for _, d := range out {
		d.index = nil // read only from here on
	}
	return out, rows.Err()
}

// sees is whether a query counts a cell: its node filter and scope.
func (q PageQuery) sees() func(cell) bool {
	var nodes map[string]bool
	if q.NodeIDs != nil {
		nodes = make(map[string]bool, len(q.NodeIDs))
		for _, n := range q.NodeIDs {
			nodes[n] = true
		}
	}
	return func(c cell) bool {
		if nodes != nil && !nodes[c.node] {
			return false
		}
		if q.Scope == nil {
			return true
		}
		if c.node == "" {
			return false // as the lake's list_contains of a null node
		}
		return q.Scope.Allows(c.media, &c.node)
	}
}
