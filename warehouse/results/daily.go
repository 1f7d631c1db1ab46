package results

import (
	"context"
	"maps"
	"slices"
	"time"
)

// Day is a day's figures for a dashboard: how many conversations arrived
// (of those a query may see), and, by classifier, how many of them have a
// result of it and how many a true one.
type Day struct {
	Date          time.Time
	Conversations int64
	Evaluated     map[string]int64
	Hits          map[string]int64
}

// Score is the day's figures of a classifier (no mean: a day keeps none).
func (d Day) Score(classifierID string) Score {
	return Score{Evaluated: d.Evaluated[classifierID], Hits: d.Hits[classifierID]}
}

// Daily counts, for each arrival day of q's window, the processed
// conversations q may see (its node filter and scope) and the results of
// the classifiers among them. Current rows are chosen by the analysts'
// views' rule (sql/views, held to the Go rule by a test): a
// conversation's newest run, and of its results for each classifier the
// newest run not older than it. Two DuckDB statements over the manifest's
// files of the window.
func (r *Reader) Daily(ctx context.Context, q PageQuery, classifierIDs []string) ([]Day, error) {
	if q.Window.wholeDays() {
		return r.dailyOfDays(ctx, q, classifierIDs)
	}
	conv, args, ok, err := r.figureConversations(ctx, q, `CAST(arrived_on AS DATE) AS day`)
	if err != nil || !ok {
		return nil, err
	}
	days := map[time.Time]*Day{}
	var order []time.Time
	rows, err := r.Lake.QueryContext(ctx, `SELECT day, count(*) FROM (`+conv+`) GROUP BY day ORDER BY day`, args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		d := &Day{Evaluated: map[string]int64{}, Hits: map[string]int64{}}
		if err := rows.Scan(&d.Date, &d.Conversations); err != nil {
			rows.Close()
			return nil, err
		}
		d.Date = d.Date.UTC()
		days[d.Date] = d
		order = append(order, d.Date)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(classifierIDs) == 0 || len(order) == 0 {
		return daysIn(days, order), err
	}

	res, ok, err := r.figureResults(ctx, q, `r.classifier_id, r.result, c.day`)
	if err != nil || !ok {
		return daysIn(days, order), err
	}
	rows, err = r.Lake.QueryContext(ctx, `WITH conv AS (`+conv+`), res AS (`+res+`)
		SELECT day, classifier_id, count(*), count(*) FILTER (WHERE result = 'true') FROM res GROUP BY day, classifier_id`,
		append(args, classifierIDs)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var day time.Time
		var classifier string
		var evaluated, hits int64
		if err := rows.Scan(&day, &classifier, &evaluated, &hits); err != nil {
			return nil, err
		}
		if d := days[day.UTC()]; d != nil {
			d.Evaluated[classifier], d.Hits[classifier] = evaluated, hits
		}
	}
	return daysIn(days, order), rows.Err()
}

func daysIn(days map[time.Time]*Day, order []time.Time) []Day {
	out := make([]Day, 0, len(order))
	for _, t := range order {
		out = append(out, *days[t])
	}
	return out
}

// dailyOfDays is Daily over whole days, summed from the days' figures.
func (r *Reader) dailyOfDays(ctx context.Context, q PageQuery, classifierIDs []string) ([]Day, error) {
	byDay, err := r.figuresByDay(ctx, q)
	if err != nil {
		return nil, err
	}
	sees := q.sees()
	var out []Day
	for _, day := range slices.SortedFunc(maps.Keys(byDay), time.Time.Compare) {
		f := byDay[day]
		visible := f.visible(sees)
		d := Day{Date: day, Evaluated: map[string]int64{}, Hits: map[string]int64{}}
		for i, n := range f.conversations {
			if visible[i] {
				d.Conversations += n
			}
		}
		if d.Conversations == 0 {
			continue
		}
		for _, id := range classifierIDs {
			var t resultSums
			for _, e := range f.results[id] {
				if visible[e.cell] {
					t.add(e.resultSums)
				}
			}
			if t.evaluated > 0 { // as the lake's statement: no entry for none
				d.Evaluated[id], d.Hits[id] = t.evaluated, t.hits
			}
		}
		out = append(out, d)
	}
	return out, nil
}
