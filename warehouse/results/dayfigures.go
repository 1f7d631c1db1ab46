package results

import (
	"cmp"
	"container/list"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sync/errgroup"

	"github.com/earshot/earshot/warehouse/catalog"
)

// A dashboard's figures over whole days are sums of each day's figures at
// the finest grain it asks for — hierarchy node, agent and media type —,
// and a day's figures change only when its files do. So each
// organization's day is summed once for its set of files and kept in
// memory; a dashboard over kept days is then a sum in Go. A day's figures
// are in turn the sum of its clusters' (sets of files no conversation
// spans two of), each kept in the catalog (keptfigures.go) by the job
// that wrote its files, or else read from the lake once (the current rows
// by the rule of Daily) and kept then: a restarted or another process
// reads no rows for kept days.

// maxCachedBytes bounds the memory of the days kept, least recently
// used first out: a day missed is read again from the catalog's kept
// figures, which is cheap, not from the lake.
const maxCachedBytes = 128 << 20

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
	bytes     int
}

// dayCache keeps days' figures, least recently used first out.
type dayCache struct {
	mu    sync.Mutex
	order *list.List // of *cachedDay, most recent first
	byKey map[dayKey]*list.Element
	bytes int // of the days kept
	limit int // maxCachedBytes unless a test sets it
}

// size is about how much memory a day's figures hold.
func (d *dayFigures) size() int {
	n := len(d.cells)*int(unsafe.Sizeof(cell{})) + len(d.conversations)*8
	for _, sums := range d.results {
		n += len(sums) * int(unsafe.Sizeof(cellSums{}))
	}
	return n
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
	if c.limit == 0 {
		c.limit = maxCachedBytes
	}
	day := &cachedDay{key: k, signature: signature, figures: f, bytes: f.size()}
	if e, ok := c.byKey[k]; ok {
		c.bytes -= e.Value.(*cachedDay).bytes
		e.Value = day
		c.order.MoveToFront(e)
	} else {
		c.byKey[k] = c.order.PushFront(day)
	}
	c.bytes += day.bytes
	for c.bytes > c.limit && c.order.Len() > 1 {
		last := c.order.Back()
		c.bytes -= last.Value.(*cachedDay).bytes
		delete(c.byKey, last.Value.(*cachedDay).key)
		c.order.Remove(last)
	}
}

// wholeDays reports whether a window is whole arrival days, which the
// cache can answer.
func (w Window) wholeDays() bool {
	return !w.ByInteraction && w.From.Equal(dayOf(w.From)) && w.To.Add(time.Microsecond).Equal(dayOf(w.To.Add(time.Microsecond)))
}

// Before is the window of as many whole days just before w (a
// dashboard's trends): a window of whole days reads the days' kept
// figures, any other the lake.
func (w Window) Before() Window {
	days := int(math.Round(w.To.Sub(w.From).Hours() / 24))
	w.From, w.To = w.From.AddDate(0, 0, -days), w.To.AddDate(0, 0, -days)
	return w
}

// dayOf is the start of t's day in UTC: the lake's partition days.
func dayOf(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

// lastOfDay is the last instant of the day starting at day, to the lake's
// microsecond.
func lastOfDay(day time.Time) time.Time { return day.Add(24*time.Hour - time.Microsecond) }

// figuresByDay gives the figures of each day of q's (whole-day) window
// that has conversations.
func (r *Reader) figuresByDay(ctx context.Context, q PageQuery) (map[time.Time]*dayFigures, error) {
	files, err := r.figureFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, From: q.From, To: q.To})
	if err != nil {
		return nil, err
	}
	return r.figuresOf(ctx, q.OrgID, files)
}

// figureFiles lists the conversations and results files a manifest query
// selects.
func (r *Reader) figureFiles(ctx context.Context, q catalog.ManifestQuery) ([]catalog.LakeFile, error) {
	q.Table = "conversations"
	convFiles, err := r.Manifest.ManifestFiles(ctx, q)
	if err != nil || len(convFiles) == 0 {
		return nil, err
	}
	q.Table = "classifier_results"
	resultFiles, err := r.Manifest.ManifestFiles(ctx, q)
	return append(slices.Clip(convFiles), resultFiles...), err
}

// figuresOf gives the figures of each day of an organization's files:
// kept in memory for the day's files, else summed from the figures of
// the day's clusters — kept in the catalog, or read from the lake and
// kept there.
func (r *Reader) figuresOf(ctx context.Context, org string, files []catalog.LakeFile) (map[time.Time]*dayFigures, error) {
	byDay := filesByDay(files)
	out := map[time.Time]*dayFigures{}
	signatures := map[time.Time]string{}
	var missing []time.Time
	for day, fs := range byDay {
		signatures[day] = signature(fs)
		if f := r.days.get(dayKey{org, day}, signatures[day]); f != nil {
			out[day] = f
			continue
		}
		missing = append(missing, day)
	}
	if len(missing) == 0 {
		return out, nil
	}
	clustersByDay := map[time.Time][]cluster{}
	wanted := map[string]bool{}
	for _, day := range missing {
		clustersByDay[day] = clustersOf(byDay[day])
		for _, c := range clustersByDay[day] {
			wanted[c.signature] = true
		}
	}
	kept, err := r.keptFigures(ctx, org, missing, wanted)
	if err != nil {
		return nil, err
	}
	for _, day := range missing {
		clusters := clustersByDay[day]
		parts := make([]*dayFigures, len(clusters))
		var unread []int
		for i, c := range clusters {
			if parts[i] = kept[c.signature]; parts[i] == nil {
				unread = append(unread, i)
			}
		}
		if err := r.fillClusters(ctx, org, day, clusters, unread, parts, nil, catalog.Stale{AllBut: signaturesOf(clusters)}); err != nil {
			return nil, err
		}
		out[day] = merge(parts)
		r.days.put(dayKey{org, day}, signatures[day], out[day])
	}
	return out, nil
}

// filesByDay groups files by their partition's day.
func filesByDay(files []catalog.LakeFile) map[time.Time][]catalog.LakeFile {
	out := map[time.Time][]catalog.LakeFile{}
	for _, f := range files {
		out[f.Date.UTC()] = append(out[f.Date.UTC()], f)
	}
	return out
}

// A cluster is a day's files whose conversation id ranges overlap: the
// rows of any one conversation, of both tables, are all in one cluster,
// so a day's figures are the sum of its clusters'. A batch's files make
// one cluster (ids grow with time) until a re-run or a reclassification
// of its conversations joins another's, or compaction merges the day.
type cluster struct {
	files     []catalog.LakeFile
	signature string
}

// clustersOf groups a day's files into clusters.
func clustersOf(files []catalog.LakeFile) []cluster {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b catalog.LakeFile) int {
		return cmp.Or(strings.Compare(a.MinID, b.MinID), strings.Compare(a.Path, b.Path))
	})
	var out []cluster
	for _, fs := range overlapping(files) {
		out = append(out, cluster{files: fs, signature: signature(fs)})
	}
	return out
}

// signaturesOf are the clusters' signatures.
func signaturesOf(clusters []cluster) []string {
	out := make([]string, len(clusters))
	for i, c := range clusters {
		out[i] = c.signature
	}
	return out
}

// readClusters reads the figures of the clusters at the given indexes
// from the lake into parts, a few at a time (one cluster's statement
// often has too few row groups to keep every core busy).
func (r *Reader) readClusters(ctx context.Context, clusters []cluster, indexes []int, parts []*dayFigures) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, i := range indexes {
		g.Go(func() error {
			read, err := r.readDays(ctx, clusters[i].files)
			if err != nil {
				return err
			}
			parts[i] = &dayFigures{results: map[string][]cellSums{}}
			for _, f := range read { // at most one: a cluster is of one day
				parts[i] = f
			}
			return nil
		})
	}
	return g.Wait()
}

// merge sums a day's clusters' figures into one.
func merge(parts []*dayFigures) *dayFigures {
	if len(parts) == 1 {
		return parts[0]
	}
	out := &dayFigures{results: map[string][]cellSums{}, index: map[cell]int{}}
	for _, p := range parts {
		at := make([]int, len(p.cells))
		for i, c := range p.cells {
			at[i] = out.cellOf(c)
			out.conversations[at[i]] += p.conversations[i]
		}
		for id, sums := range p.results {
			for _, s := range sums {
				out.results[id] = append(out.results[id], cellSums{at[s.cell], s.resultSums})
			}
		}
	}
	out.index = nil
	return out
}

// figuresFormat is hashed into every signature: figures kept in another
// format are not read, and are dropped when their day is kept again.
const figuresFormat = "figures/1"

// signature names a set of files (a day's, a cluster's): their paths,
// which no other file ever has.
func signature(files []catalog.LakeFile) string {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	slices.Sort(paths)
	h := sha256.New()
	h.Write([]byte(figuresFormat))
	for _, p := range paths {
		h.Write([]byte{0})
		h.Write([]byte(p))
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
		coalesce(agent_code, '') AS agent, media_type AS media`, "", "")
	in := newInterner()
	entryOf := func(t time.Time) *dayFigures {
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
		d := entryOf(day)
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
		d := entryOf(day)
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
