package results

import (
	"context"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Search narrows a list of conversations by what only the lake knows.
type Search struct {
	// ClassifierID with Result: conversations whose current result of
	// the classifier is Result ("true", "false", a label).
	ClassifierID, Result string
	// Text: conversations whose current transcript has a turn
	// containing it, in any case.
	Text string
	// AgentCode: conversations of the agent of this code, in any case.
	AgentCode string
	// Newest lists from the newest conversation back, before BeforeID
	// when it is set (q.AfterID is then not read).
	Newest   bool
	BeforeID string
}

// Search lists the ids of the processed conversations q may see that
// arrived in its window and match s (their current rows, by the rule of
// Daily), at most q.Limit: oldest first after q.AfterID, or newest first
// before s.BeforeID. Ids grow with arrival, so it reads the windows of
// searchWindows from one end of q's until the page is full: a page near
// either end reads its hours alone, however long the range; a caller
// going on from a cursor starts the range at its arrival. When the first
// window leaves the page short, the days' kept figures say on which days
// a yes or no result is found at all, and the windows after it read
// those days alone: a rare result is not looked for in the lake's every
// row, nor the last page past its last day.
func (r *Reader) Search(ctx context.Context, q PageQuery, s Search) ([]string, error) {
	var ids []string
	var days *resultDays // read for the windows after the first: the days that may hold matches
	first := true
	for w := range searchWindows(q.Window, s.Newest) {
		if !first {
			var err error
			if days == nil {
				if days, err = r.daysOfResult(ctx, q, s); err != nil {
					return nil, err
				}
			}
			var ok bool
			if w, ok = days.narrow(w); !ok {
				continue
			}
		}
		first = false
		page := q
		page.Window, page.Limit = w, q.Limit-len(ids)
		matches, err := r.searchWindow(ctx, page, s)
		if err != nil {
			return nil, err
		}
		if ids = append(ids, matches...); len(ids) >= q.Limit {
			break
		}
	}
	return ids, nil
}

// resultDays are the arrival days on which a search's result is found,
// in order; every day when the kept figures cannot say (a label, not a
// yes or no; a window by interaction date).
type resultDays struct {
	every bool
	days  []time.Time
}

// daysOfResult reads from the days' figures (Daily, over q's window
// widened to whole days) the days on which s's result is some
// conversation's: on no other day of q's window can s find one, whatever
// else it asks.
func (r *Reader) daysOfResult(ctx context.Context, q PageQuery, s Search) (*resultDays, error) {
	if s.ClassifierID == "" || s.Result != "true" && s.Result != "false" || q.ByInteraction {
		return &resultDays{every: true}, nil
	}
	whole := q
	whole.From, whole.To = dayOf(q.From), lastOfDay(dayOf(q.To))
	daily, err := r.Daily(ctx, whole, []string{s.ClassifierID})
	if err != nil {
		return nil, err
	}
	out := &resultDays{}
	for _, d := range daily {
		if s.Matching(d.Score(s.ClassifierID)) > 0 {
			out.days = append(out.days, d.Date)
		}
	}
	return out, nil
}

// Matching is how many of the conversations a yes/no classifier's
// figures count (sc) have s's result: its hits for "true", the rest of
// those it evaluated otherwise.
func (s Search) Matching(sc Score) int64 {
	if s.Result == "true" {
		return sc.Hits
	}
	return sc.Evaluated - sc.Hits
}

// narrow cuts w to its days that hold matches, from the first to the
// last; false when none does.
func (d *resultDays) narrow(w Window) (Window, bool) {
	if d.every {
		return w, true
	}
	first, _ := slices.BinarySearchFunc(d.days, dayOf(w.From), time.Time.Compare)
	end, found := slices.BinarySearchFunc(d.days, dayOf(w.To), time.Time.Compare)
	if found {
		end++
	}
	if first >= end {
		return w, false
	}
	w.From = maxTime(w.From, d.days[first])
	w.To = minTime(w.To, lastOfDay(d.days[end-1]))
	return w, true
}

// firstSearchSpan is the first window a search reads, at the end of its
// range it starts from; each next one is searchGrowth times as long. A
// first window of an hour holds a page of any common result, and reads a
// few row groups of its day's files where a day's window read them all;
// growing fourfold, a result found nowhere takes as many windows over a
// quarter as growing twofold from a day did.
const (
	firstSearchSpan = time.Hour
	searchGrowth    = 4
)

// searchWindows cuts w into windows that follow one another from its
// start (from its end when newest), each searchGrowth times as long as
// the one before. Lake timestamps are in microseconds: windows end a
// microsecond before the next one starts, so that a row at any microsecond
// falls in exactly one of them however the bounds are rounded to it.
func searchWindows(w Window, newest bool) iter.Seq[Window] {
	return func(yield func(Window) bool) {
		for span := firstSearchSpan; !w.To.Before(w.From); span = grown(span) {
			page := w
			if newest {
				page.From = maxTime(w.To.Add(-span+time.Microsecond), w.From)
				w.To = page.From.Add(-time.Microsecond)
			} else {
				page.To = minTime(w.From.Add(span-time.Microsecond), w.To)
				w.From = page.To.Add(time.Microsecond)
			}
			if !yield(page) {
				return
			}
		}
	}
}

// grown is the span after span, at most the longest a duration holds
// (a range of centuries takes it there).
func grown(span time.Duration) time.Duration {
	if span > math.MaxInt64/searchGrowth {
		return math.MaxInt64
	}
	return span * searchGrowth
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// searchWindow is one query of Search, over q's window.
func (r *Reader) searchWindow(ctx context.Context, q PageQuery, s Search) ([]string, error) {
	conv, args, ok, err := r.figureConversations(ctx, q, `agent_code`)
	if err != nil || !ok {
		return nil, err
	}
	with := `WITH conv AS (` + conv + `)`
	where, order, cursor := ` WHERE c.conversation_id > ?`, ``, []any{q.AfterID}
	if s.Newest {
		where, order, cursor = ` WHERE (? = '' OR c.conversation_id < ?)`, ` DESC`, []any{s.BeforeID, s.BeforeID}
	}
	var tail []any
	if s.AgentCode != "" {
		where += ` AND lower(c.agent_code) = lower(?)`
		tail = append(tail, s.AgentCode)
	}
	if s.ClassifierID != "" {
		res, ok, err := r.figureResults(ctx, q, `r.conversation_id, r.result`)
		if err != nil || !ok {
			return nil, err
		}
		with += `, res AS (` + res + `)`
		args = append(args, []string{s.ClassifierID})
		where += ` AND c.conversation_id IN (SELECT conversation_id FROM res WHERE result = ?)`
		tail = append(tail, s.Result)
	}
	if text := strings.TrimSpace(s.Text); text != "" {
		files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "transcript_segments", From: q.From, To: q.To})
		if err != nil || len(files) == 0 {
			return nil, err
		}
		list, err := r.Lake.Files(ctx, catalog.Paths(files))
		if err != nil {
			return nil, err
		}
		where += ` AND c.conversation_id IN (SELECT t.conversation_id FROM read_parquet(` + list + `, hive_partitioning = false) t
			JOIN conv k ON k.conversation_id = t.conversation_id AND k.run_id = t.run_id
			WHERE contains(lower(t.text), lower(?)))`
		tail = append(tail, text)
	}
	args = append(append(append(args, cursor...), tail...), q.Limit)
	rows, err := r.Lake.QueryContext(ctx, with+` SELECT c.conversation_id FROM conv c`+where+` ORDER BY c.conversation_id`+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Excerpts are, for each of the conversations of ids in q's window, the
// first turn of its current transcript that contains text (in any case).
func (r *Reader) Excerpts(ctx context.Context, q PageQuery, ids []string, text string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 || strings.TrimSpace(text) == "" {
		return out, nil
	}
	conv, args, ok, err := r.figureConversations(ctx, q, `agent_code`)
	if err != nil || !ok {
		return out, err
	}
	files, err := r.Manifest.ManifestFiles(ctx, catalog.ManifestQuery{OrgID: q.OrgID, Table: "transcript_segments", From: q.From, To: q.To})
	if err != nil || len(files) == 0 {
		return out, err
	}
	list, err := r.Lake.Files(ctx, catalog.Paths(files))
	if err != nil {
		return out, err
	}
	rows, err := r.Lake.QueryContext(ctx, `WITH conv AS (`+conv+`)
		SELECT t.conversation_id, arg_min(t.text, t.segment_index) FROM read_parquet(`+list+`, hive_partitioning = false) t
		JOIN conv k ON k.conversation_id = t.conversation_id AND k.run_id = t.run_id
		WHERE list_contains(?, t.conversation_id) AND contains(lower(t.text), lower(?))
		GROUP BY t.conversation_id`, append(args, ids, strings.TrimSpace(text))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, turn string
		if err := rows.Scan(&id, &turn); err != nil {
			return nil, err
		}
		out[id] = turn
	}
	return out, rows.Err()
}
