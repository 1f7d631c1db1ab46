package catalog

import (
	"context"
	"strings"
	"time"
)

// ScoreGroup is the submitted evaluations of one agent code or hierarchy
// node: how many have a score, and their mean.
type ScoreGroup struct {
	Key         string // the agent code or hierarchy node id; "" for none
	Evaluations int64
	Mean        float64
}

// ScoreQuery selects the evaluations ScoresBy counts: of conversations that
// arrived in a window, on some hierarchy nodes (nil: all), that a scope
// lets read.
type ScoreQuery struct {
	ArrivedFrom, ArrivedTo time.Time
	NodeIDs                []string
	Scope                  Scope
	ByAgent                bool // by the conversation's agent code, else its hierarchy node
}

// ScoresBy sums the scores of an organization's submitted evaluations (a
// score, a submission, not NoValue) by agent code or hierarchy node.
func (c *EvaluationStore) ScoresBy(ctx context.Context, orgID string, q ScoreQuery) ([]ScoreGroup, error) {
	key := "coalesce(i.hierarchy_node_id, '')"
	if q.ByAgent {
		key = "coalesce(i.agent_code, '')"
	}
	where := []string{"i.org_id = e.org_id", "i.id = e.conversation_id", "e.org_id = ?", "e.submitted_on IS NOT NULL", "e.score IS NOT NULL",
		"e.status <> ?", "i.arrived_on >= ?", "i.arrived_on <= ?"}
	args := []any{orgID, EvaluationNoValue, stamp(q.ArrivedFrom), stamp(q.ArrivedTo)}
	if q.NodeIDs != nil {
		where, args = append(where, anyOf("i.hierarchy_node_id")), append(args, list(q.NodeIDs))
	}
	if q.Scope != nil {
		cond, scopeArgs := q.Scope.where("i.media_type", "i.hierarchy_node_id")
		where, args = append(where, cond), append(args, scopeArgs...)
	}
	return queryAll(ctx, c.db, func(s scanner) (ScoreGroup, error) {
		var g ScoreGroup
		err := s.Scan(&g.Key, &g.Evaluations, &g.Mean)
		return g, err
	}, // From the evaluations to their conversations (SQLite keeps a CROSS
		// JOIN's order): the other way round reads every conversation of
		// the window to find the few evaluated.
		`SELECT `+key+`, count(*), avg(e.score) FROM evaluations e CROSS JOIN interactions i
		WHERE `+strings.Join(where, " AND ")+` GROUP BY 1`, args...)
}
