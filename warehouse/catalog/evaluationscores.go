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
// lets read; people's (SourceHuman) or the classifiers' (SourceAuto).
type ScoreQuery struct {
	ArrivedFrom, ArrivedTo time.Time
	NodeIDs                []string
	Scope                  Scope
	ByAgent                bool // by the conversation's agent code, else its hierarchy node
	Source                 string
}

// ScoresBy sums the scores of an organization's evaluations by agent code
// or hierarchy node: people's once submitted (a score, not NoValue), or
// the classifiers' (every conversation of an auto-scored form).
func (c *EvaluationStore) ScoresBy(ctx context.Context, orgID string, q ScoreQuery) ([]ScoreGroup, error) {
	statement, args := scoresStatement(orgID, q)
	return queryAll(ctx, c.db, func(s scanner) (ScoreGroup, error) {
		var g ScoreGroup
		err := s.Scan(&g.Key, &g.Evaluations, &g.Mean)
		return g, err
	}, statement, args...)
}

// scoresStatement is ScoresBy's query and its arguments.
func scoresStatement(orgID string, q ScoreQuery) (string, []any) {
	key := "coalesce(i.hierarchy_node_id, '')"
	if q.ByAgent {
		key = "coalesce(i.agent_code, '')"
	}
	where := []string{"i.org_id = e.org_id", "i.id = e.conversation_id", "e.org_id = ?", "e.score IS NOT NULL",
		"i.arrived_on >= ?", "i.arrived_on <= ?"}
	args := []any{orgID, stamp(q.ArrivedFrom), stamp(q.ArrivedTo)}
	// People's evaluations are few: from them to their conversations
	// (SQLite keeps a CROSS JOIN's order; the other way round reads every
	// conversation of the window). The classifiers' are one a conversation:
	// from the window's conversations to them.
	from := `evaluations e CROSS JOIN interactions i`
	if q.Source == SourceAuto {
		from = `interactions i CROSS JOIN auto_evaluations e`
		where = append(where, "i.org_id = ?")
		args = append(args, orgID)
	} else {
		where = append(where, "e.submitted_on IS NOT NULL", "e.status <> ?")
		args = append(args, EvaluationNoValue)
	}
	if q.NodeIDs != nil {
		where, args = append(where, anyOf("i.hierarchy_node_id")), append(args, list(q.NodeIDs))
	}
	if q.Scope != nil {
		cond, scopeArgs := q.Scope.where("i.media_type", "i.hierarchy_node_id")
		where, args = append(where, cond), append(args, scopeArgs...)
	}
	return `SELECT ` + key + `, count(*), avg(e.score) FROM ` + from + ` WHERE ` + strings.Join(where, " AND ") + ` GROUP BY 1`, args
}
