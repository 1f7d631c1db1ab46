package results

import (
	"cmp"
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"
	"time"
)

// GroupBy is what a dashboard groups conversations by: a lake
// conversation column.
type GroupBy string

const (
	ByTeam  GroupBy = "hierarchy_node_id"
	ByAgent GroupBy = "agent_code"
)

// Group is one team's or agent's figures over a window: how many
// conversations, and by classifier its scored results.
type Group struct {
	Key           string // the hierarchy node id or agent code; "" for none
	Conversations int64
	Scores        map[string]Score
}

// Score is a classifier's results over a group: how many, their mean
// score (sentiment's compound, talk's measure) and how many are true.
type Score struct {
	Evaluated int64
	Mean      *float64 // nil when none had a score
	Hits      int64
}

// Groups gives the limit groups with the most conversations q may see in
// its window, most first, and the results of the given classifiers over
// each: the current rows by the same rule as Daily.
func (r *Reader) Groups(ctx context.Context, q PageQuery, by GroupBy, classifierIDs []string, limit int) ([]Group, error) {
	if q.Window.wholeDays() {
		return r.groupsOfDays(ctx, q, by, classifierIDs, limit)
	}
	conv, args, ok, err := r.figureConversations(ctx, q, `coalesce(`+string(by)+`, '') AS grp`)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := r.Lake.QueryContext(ctx, `SELECT grp, count(*) AS n FROM (`+conv+`) GROUP BY grp ORDER BY n DESC, grp LIMIT ?`,
		append(args, limit)...)
	if err != nil {
		return nil, err
	}
	var groups []Group
	at := map[string]int{}
	for rows.Next() {
		g := Group{Scores: map[string]Score{}}
		if err := rows.Scan(&g.Key, &g.Conversations); err != nil {
			rows.Close()
			return nil, err
		}
		at[g.Key] = len(groups)
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(classifierIDs) == 0 || len(groups) == 0 {
		return groups, err
	}

	res, ok, err := r.figureResults(ctx, q, `r.classifier_id, r.result, r.score, c.grp`)
	if err != nil || !ok {
		return groups, err
	}
	keys := make([]string, len(groups))
	for i, g := range groups {
		keys[i] = g.Key
	}
	rows, err = r.Lake.QueryContext(ctx, `WITH conv AS (`+conv+`), res AS (`+res+`)
		SELECT grp, classifier_id, count(*), avg(score), count(*) FILTER (WHERE result = 'true')
		FROM res WHERE list_contains(?, grp) GROUP BY grp, classifier_id`,
		append(append(args, classifierIDs), keys)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var key, classifier string
		var s Score
		var mean sql.NullFloat64
		if err := rows.Scan(&key, &classifier, &s.Evaluated, &mean, &s.Hits); err != nil {
			return nil, err
		}
		if mean.Valid {
			s.Mean = &mean.Float64
		}
		if i, ok := at[key]; ok {
			groups[i].Scores[classifier] = s
		}
	}
	return groups, rows.Err()
}

// groupsOfDays is Groups over whole days, summed from the days' figures.
func (r *Reader) groupsOfDays(ctx context.Context, q PageQuery, by GroupBy, classifierIDs []string, limit int) ([]Group, error) {
	byDay, err := r.figuresByDay(ctx, q)
	if err != nil {
		return nil, err
	}
	keyOf := func(c cell) string { return c.node }
	if by == ByAgent {
		keyOf = func(c cell) string { return c.agent }
	}
	sees := q.sees()
	// Groups get a slot each as they appear; a day's cells are mapped to
	// their group's slot once, so that its results are summed by index.
	slotOf := map[string]int{}
	var groups []*Group
	var sums [][]resultSums // by slot, then by classifier's place
	var summed [][]bool     // whether a classifier has results in a group

	for _, day := range slices.SortedFunc(maps.Keys(byDay), time.Time.Compare) { // in order: the same sums to the last bit
		f := byDay[day]
		visible := f.visible(sees)
		slots := make([]int, len(f.cells))
		for i, c := range f.cells {
			slots[i] = -1
			if !visible[i] {
				continue
			}
			key := keyOf(c)
			slot, ok := slotOf[key]
			if !ok {
				slot = len(groups)
				slotOf[key] = slot
				groups = append(groups, &Group{Key: key, Scores: map[string]Score{}})
				sums, summed = append(sums, make([]resultSums, len(classifierIDs))), append(summed, make([]bool, len(classifierIDs)))
			}
			slots[i] = slot
			groups[slot].Conversations += f.conversations[i]
		}
		for k, id := range classifierIDs {
			for _, e := range f.results[id] {
				if slot := slots[e.cell]; slot >= 0 {
					sums[slot][k].add(e.resultSums)
					summed[slot][k] = true
				}
			}
		}
	}
	out := make([]Group, 0, len(groups))
	for slot, g := range groups {
		for k, id := range classifierIDs {
			if !summed[slot][k] {
				continue
			}
			t := sums[slot][k]
			s := Score{Evaluated: t.evaluated, Hits: t.hits}
			if t.scored > 0 {
				mean := t.scoreSum / float64(t.scored)
				s.Mean = &mean
			}
			g.Scores[id] = s
		}
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b Group) int {
		if c := cmp.Compare(b.Conversations, a.Conversations); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out[:min(limit, len(out))], nil
}
